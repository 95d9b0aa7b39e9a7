import Foundation
import XCTest
@testable import SysoundAudio

/// The engine on a real sound server: Tests/fixture/with-pulse.sh starts a
/// private PulseAudio with a 48 kHz null sink and records its monitor.
final class PulseDeviceTests: XCTestCase {
    struct Pulse {
        let monitor: String
        let ctl: String
    }

    /// The fixture, or a skip (a failure with SYSOUND_REQUIRE_PULSE=1).
    func pulse() throws -> Pulse {
        let env = ProcessInfo.processInfo.environment
        guard env["PULSE_SERVER"] != nil, let monitor = env["SYSOUND_MONITOR_FILE"], let ctl = env["SYSOUND_PULSE_CTL"] else {
            if env["SYSOUND_REQUIRE_PULSE"] == "1" {
                XCTFail("SYSOUND_REQUIRE_PULSE=1 but PULSE_SERVER is unset: run under Tests/fixture/with-pulse.sh")
            }
            throw XCTSkip("no PulseAudio fixture: run under Tests/fixture/with-pulse.sh")
        }
        return Pulse(monitor: monitor, ctl: ctl)
    }

    func size(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// The stereo float frames appended to the recording since byte `offset`.
    func recorded(_ path: String, since offset: Int) throws -> [Float] {
        let fh = try XCTUnwrap(FileHandle(forReadingAtPath: path))
        defer { try? fh.close() }
        try fh.seek(toOffset: UInt64(offset))
        let data = try fh.readToEnd() ?? Data()
        let usable = data.count / 8 * 8
        return data.prefix(usable).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Runs `pulse-ctl.sh verb` with posix_spawn + waitpid: Foundation's
    /// Process missed the child's exit here once OpenAL's threads were running.
    func ctl(_ p: Pulse, _ verb: String) throws {
        var pid: pid_t = 0
        let args = [p.ctl, verb]
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        XCTAssertEqual(posix_spawn(&pid, p.ctl, nil, nil, &argv, environ), 0, "spawn \(p.ctl)")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        XCTAssertEqual(status, 0, "pulse-ctl \(verb) exit status")
    }

    func until(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    func deviceEngine(_ dir: String) throws -> (AudioEngine, Clip) {
        let engine = try AudioEngine(settings: .defaults, output: .device)
        addTeardownBlock { engine.shutdown() }
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.15, amplitude: 0.5), to: dir, name: "tap.wav")
        XCTAssertTrue(engine.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        return (engine, try engine.clip(named: "tap"))
    }

    /// Plays `clip` and returns the onset (seconds after the call) and peak found in the recording.
    func playAndRecord(_ engine: AudioEngine, _ clip: Clip, _ p: Pulse) throws -> (onset: Double?, peak: Float) {
        usleep(50_000)
        let before = size(p.monitor)
        let v = try engine.play(clip)
        XCTAssertTrue(engine.wait(for: v, timeout: 2))
        usleep(150_000)
        let left = Fixture.channel(try recorded(p.monitor, since: before / 8 * 8), 0)
        return (Fixture.onset(left, threshold: 0.01).map { Double($0) / 48_000 }, Fixture.peak(left))
    }

    func testPlayReachesTheSink() throws {
        let p = try pulse()
        let (engine, clip) = try deviceEngine(try Fixture.directory(self))
        XCTAssertTrue(engine.deviceName.contains("sysound"), "the null sink is named: \(engine.deviceName)")
        print("opened \(engine.deviceName); granted \(engine.grantedFormat)")
        var onsets: [Double] = []
        for _ in 0..<5 {
            let r = try playAndRecord(engine, clip, p)
            XCTAssertEqual(r.peak, 0.5, accuracy: 0.05, "the tone arrives at its level")
            onsets += r.onset.map { [$0] } ?? []
        }
        XCTAssertEqual(onsets.count, 5, "every play was found in the recording")
        let sorted = onsets.sorted()
        print(String(format: "request-to-sink (incl. recorder): median %.1f ms, max %.1f ms", sorted[sorted.count / 2] * 1000, sorted.last! * 1000))
    }

    func testDeviceLossAndReturn() throws {
        let p = try pulse()
        let (engine, clip) = try deviceEngine(try Fixture.directory(self))
        let long = try engine.play(clip, category: .playback, loop: true)
        try ctl(p, "stop")
        XCTAssertTrue(until(3) { !engine.isConnected }, "the loss is noticed")
        XCTAssertThrowsError(try engine.play(clip)) { XCTAssertEqual($0 as? AudioError, .deviceUnavailable) }
        try ctl(p, "start")
        XCTAssertTrue(until(10) { engine.isConnected }, "the engine reopens the device when the server returns")
        XCTAssertEqual(engine.reconnections, 1)
        XCTAssertFalse(engine.isPlaying(long), "a playback voice is not restarted on the new device")
        let r = try playAndRecord(engine, clip, p)
        XCTAssertEqual(r.peak, 0.5, accuracy: 0.05, "plays again after the server returns (buffers re-uploaded from kept PCM)")
        XCTAssertNotNil(r.onset)
        // A new voice in the old voice's slot is not the old voice.
        let fresh = try engine.play(clip, category: .playback, loop: true)
        XCTAssertEqual(fresh.slot, long.slot)
        XCTAssertTrue(engine.isPlaying(fresh))
        XCTAssertFalse(engine.isPlaying(long), "an ID from before the loss never names a new voice")
        engine.stop(fresh)
    }

    func testNoDeviceIsATypedError() throws {
        if ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil {
            throw XCTSkip("a sound server is running")
        }
        do {
            let e = try AudioEngine(output: .device)
            e.shutdown()
            throw XCTSkip("this machine has an audio output device")
        } catch let error as AudioError {
            guard case .noOutputDevice = error else { return XCTFail("unexpected \(error)") }
            XCTAssertTrue(error.description.contains("no audio output device"))
        }
    }
}
