import SysoundConfig
import SysoundCore
import XCTest

/// `[audio] output`: what the engine plays through.
final class AudioOutputConfigTests: XCTestCase {
    private func parse(_ text: String) -> (SysoundConfiguration, [Diagnostic]) {
        SysoundConfiguration.parse(text: text, file: "t.toml", dataDirectory: "/data")
    }

    func testEachValueSelectsItsOutput() {
        for backend in AudioBackend.allCases {
            let (config, diagnostics) = parse("[audio]\noutput = \"\(backend.rawValue)\"\n")
            XCTAssertEqual(diagnostics, [], backend.rawValue)
            XCTAssertEqual(config.audio.backend, backend)
        }
    }

    func testAnUnknownValueIsNamedWithTheAllowedOnesAndKeepsTheDefault() {
        let (config, diagnostics) = parse("[audio]\noutput = \"puls\"\n")
        XCTAssertEqual(config.audio.backend, AudioSettings().backend)
        XCTAssertEqual(diagnostics.map(\.key), ["audio.output"])
        let text = diagnostics.map(\.description).joined()
        XCTAssertTrue(text.contains("\"puls\" is not an audio output; did you mean \"pulse\"?"), text)
        XCTAssertTrue(text.contains("expected \"auto\", \"pulse\" or \"openal\""), text)
    }

    func testAWrongTypeIsReported() {
        let (config, diagnostics) = parse("[audio]\noutput = 1\n")
        XCTAssertEqual(config.audio.backend, AudioSettings().backend)
        XCTAssertEqual(diagnostics.map(\.key), ["audio.output"])
        XCTAssertTrue(diagnostics.map(\.description).joined().contains("\"auto\", \"pulse\" or \"openal\", in quotes"))
    }
}
