import Foundation
import SysoundCore
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// An idle sysound costs the sound server nothing: with a music player's
/// long-buffered stream on the sink, sysound's corked stream leaves the
/// sink's latency where the music put it. (On PulseAudio a corked stream's
/// latency request still sets the sink's: the 2 ms stream of an idle sysound
/// held the sink at 0.75 ms, and the server woke 150 times as often.)
final class IdleSinkLatencyTests: XCTestCase, OutputSelecting {
    static var backend: AudioBackend { .pulse }

    private func pactl(_ args: String...) throws -> String {
        let r = try Spawned.run("/usr/bin/pactl", args)
        guard r.status == 0 else { throw FixtureError("pactl \(args.joined(separator: " ")): \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The configured latency of sink `name` (`pactl list sinks`: "Latency: 1499 usec, configured 1500000 usec"), µs.
    private func configuredLatency(of name: String) -> Int? {
        guard let text = try? pactl("list", "sinks") else { return nil }
        var inSink = false
        for line in text.split(separator: "\n") {
            if line.contains("Name: ") { inSink = line.hasSuffix("Name: \(name)") }
            if inSink, let range = line.range(of: "configured ") { return Int(line[range.upperBound...].prefix { $0.isNumber }) }
        }
        return nil
    }

    func testAnIdleStreamLeavesTheSinkLatencyToTheMusic() throws {
        let p = try PulseFixture.require()
        try XCTSkipIf(Pulse.server == .pipewire, "PipeWire sets no sink latency from a corked stream")
        // A sink of its own: the fixture's is held at 1 ms by its recorder.
        let sink = "sysound_latency"
        let module = try pactl("load-module", "module-null-sink", "sink_name=\(sink)", "rate=48000", "channels=2", "sink_properties=device.description=\(sink)")
        defer { _ = try? pactl("unload-module", module) }
        // The music: 1.5 s of buffer, as a player asks for.
        let music = try Spawned("/usr/bin/pacat", [
            "--playback", "-d", sink, "--raw", "--format=s16le", "--rate=48000", "--channels=2", "--latency-msec=1500", "/dev/zero",
        ])
        defer {
            music.signal(SIGTERM)
            _ = music.wait(timeout: 5, then: SIGKILL)
        }
        XCTAssertTrue(eventually(3) { self.configuredLatency(of: sink) ?? 0 > 500_000 }, "the music sets a long sink latency: \(configuredLatency(of: sink) ?? -1) µs, pacat: \(music.stderr) \((try? pactl("list", "sinks")) ?? "")")
        let alone = try XCTUnwrap(configuredLatency(of: sink))

        let (engine, clip) = try deviceEngine(try Fixture.directory(self)) { $0.idlePauseMilliseconds = 200 }
        // Its stream onto that sink (`set-default-sink` would move the fixture's recorder too).
        let fixtureSink = ProcessInfo.processInfo.environment["SYSOUND_SINK"] ?? "sysound_test"
        let sinks = try pactl("list", "short", "sinks").split(separator: "\n").map { $0.split(separator: "\t") }
        let fixtureIndex = try XCTUnwrap(sinks.first { $0.count > 1 && $0[1] == fixtureSink }?.first)
        let ours = try XCTUnwrap(try p.ownSinkInput(onSink: String(fixtureIndex)), "sysound's stream on \(fixtureSink)")
        _ = try pactl("move-sink-input", ours, sink)
        XCTAssertTrue(eventually(2) { engine.deviceName == sink }, "moved: \(engine.deviceName)")
        let v = try engine.play(clip)
        XCTAssertTrue(engine.wait(for: v, timeout: 2))
        XCTAssertTrue(eventually(3) { engine.isOutputPaused }, "sysound went idle")
        XCTAssertTrue(
            // The server takes the relaxed request and recomputes the sink's latency in its own time.
            eventually(5) { self.configuredLatency(of: sink) ?? 0 >= alone * 9 / 10 },
            "idle sysound holds the sink at \(configuredLatency(of: sink) ?? -1) µs; the music alone: \(alone) µs; \((try? p.sinkInputs()) ?? "")")

        // A sound after the idle pause still plays, and while it does the sink follows sysound's short buffer.
        let w = try engine.play(clip, loop: true)
        XCTAssertTrue(eventually(2) { self.configuredLatency(of: sink) ?? .max < 100_000 }, "playing, sysound's buffer sets the sink: \(configuredLatency(of: sink) ?? -1) µs")
        engine.stop(w)
    }
}
