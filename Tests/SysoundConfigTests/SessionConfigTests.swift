import SysoundConfig
import SysoundCore
import XCTest

/// `[session] lock_sources`: which desktop services the daemon follows for the lock.
final class SessionConfigTests: XCTestCase {
    private func parse(_ text: String) -> (SysoundConfiguration, [Diagnostic]) {
        SysoundConfiguration.parse(text: text, file: "t.toml", dataDirectory: "/data")
    }

    func testBothSourcesByDefaultAndEmptyMeansTheFileAlone() {
        XCTAssertEqual(parse("").0.lockSources, [.logind, .screensaver])
        let (config, diagnostics) = parse("[session]\nlock_sources = []\n")
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(config.lockSources, [])
        XCTAssertEqual(parse("[session]\nlock_sources = [\"screensaver\", \"screensaver\"]\n").0.lockSources, [.screensaver])
    }

    func testAnUnknownSourceIsNamedWithASuggestion() {
        let (config, diagnostics) = parse("[session]\nlock_sources = [\"logindd\", \"screensaver\"]\n")
        XCTAssertEqual(config.lockSources, [.screensaver])
        XCTAssertEqual(diagnostics.map(\.key), ["session.lock_sources"])
        let text = diagnostics.map(\.description).joined()
        XCTAssertTrue(text.contains("\"logindd\" is not a lock source; did you mean \"logind\"?"), text)
        XCTAssertTrue(text.contains("or [] for the locked file alone"), text)
    }

    func testAWrongTypeKeepsTheDefaultAndUnknownKeysAreReported() {
        let (config, diagnostics) = parse("[session]\nlock_sources = \"logind\"\nlock_source = []\n")
        XCTAssertEqual(config.lockSources, [.logind, .screensaver])
        XCTAssertEqual(Set(diagnostics.map(\.key)), ["session.lock_sources", "session.lock_source"])
    }
}
