import Foundation
import SysoundCore
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// The mark PipeWire's `pulse.rules` match (`sysound.engine`): on the own
/// stream's context through its property list, on OpenAL Soft's client
/// through PULSE_PROP, set before the daemon's first thread.
final class PulseClientTagTests: XCTestCase {
    func testTheMarkIsAddedAndTheUsersPropertiesKept() {
        XCTAssertEqual(PulseClientTag.merged(into: ""), "sysound.engine=openal-soft")
        XCTAssertEqual(PulseClientTag.merged(into: "  "), "sysound.engine=openal-soft")
        XCTAssertEqual(PulseClientTag.merged(into: "media.role='event sounds'"), "media.role='event sounds' sysound.engine=openal-soft")
        XCTAssertNil(PulseClientTag.merged(into: "a=b sysound.engine=mine"), "a user's own value stays")
    }

    /// The server's list of clients, with their properties.
    private func clients() throws -> String {
        let result = try Spawned.run("/usr/bin/pactl", ["list", "clients"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    /// The clients that carry the mark, by the server's client number.
    private func marked(_ list: String) -> Set<Substring> {
        Set(list.components(separatedBy: "Client #").dropFirst()
            .filter { $0.contains("sysound.engine = \"openal-soft\"") }
            .map { $0.prefix { $0.isNumber } })
    }

    /// The own stream's client carries the mark without any environment
    /// variable. The stream is the one the engine's opening added (the
    /// fixture's `sinkInputs`); its client may be older than the engine (the
    /// process's one sound-server connection, which another test's engine
    /// may have opened).
    func testTheOwnStreamsContextCarriesTheMark() throws {
        let p = try PulseFixture.require()
        var s = AudioSettings()
        s.backend = .pulse
        let engine = try AudioEngine(settings: s, output: .device)
        defer { engine.shutdown() }
        XCTAssertTrue(engine.playsOnOwnStream)
        let added = try p.sinkInputs().components(separatedBy: "Sink Input #").dropFirst()
        XCTAssertEqual(added.count, 1, "the engine's stream: \(added)")
        let client = try XCTUnwrap(added.first?.split(separator: "\n")
            .first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Client: ") }?.split(separator: " ").last,
            "the stream names its client: \(added)")
        let list = try clients()
        XCTAssertTrue(marked(list).contains(client), "client #\(client) of the engine's stream: \(list)")
    }

    /// A daemon on OpenAL Soft's own device: its PulseAudio client carries the
    /// mark, which only PULSE_PROP can give it (set while the daemon had one thread).
    func testOpenALSoftsClientInTheDaemonCarriesTheMark() throws {
        _ = try PulseFixture.require()
        let before = marked(try clients())
        let daemon = try DaemonProcess(config: "[audio]\noutput = \"openal\"\n[xdg]\nfallback = false\n")
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && !daemon.log().contains("audio output ") { usleep(50_000) }
        XCTAssertFalse(daemon.log().contains("threads started before the audio set-up"), daemon.log(tail: 20))
        let list = try clients()
        XCTAssertEqual(marked(list).subtracting(before).count, 1, list)
    }
}
