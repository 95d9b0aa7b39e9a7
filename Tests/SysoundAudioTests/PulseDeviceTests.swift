import Foundation
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// The engine on a real sound server: Tests/fixture/with-pulse.sh starts a
/// private PulseAudio with a 48 kHz null sink and records its monitor.
final class PulseDeviceTests: XCTestCase {
    /// Plays `clip` and returns the onset (seconds after the call) and peak found in the recording.
    func playAndRecord(_ engine: AudioEngine, _ clip: Clip, _ p: PulseFixture) throws -> (onset: Double?, peak: Float) {
        usleep(50_000)
        let before = p.recordedBytes
        let v = try engine.play(clip)
        XCTAssertTrue(engine.wait(for: v, timeout: 2))
        usleep(150_000)
        let left = Fixture.channel(try p.recorded(since: before), 0)
        return (Fixture.onset(left, threshold: 0.01).map { Double($0) / 48_000 }, Fixture.peak(left))
    }

    func testPlayReachesTheSink() throws {
        let p = try PulseFixture.require()
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
        guard !onsets.isEmpty else { return }
        let sorted = onsets.sorted()
        print(String(format: "request-to-sink (incl. recorder): median %.1f ms, max %.1f ms", sorted[sorted.count / 2] * 1000, sorted.last! * 1000))
    }

    func testDeviceLossAndReturn() throws {
        let p = try PulseFixture.require()
        let (engine, clip) = try deviceEngine(try Fixture.directory(self))
        let long = try engine.play(clip, category: .playback, loop: true)
        try p.control("stop")
        XCTAssertTrue(eventually(3) { !engine.isConnected }, "the loss is noticed")
        XCTAssertThrowsError(try engine.play(clip)) { XCTAssertEqual($0 as? AudioError, .deviceUnavailable) }
        try p.control("start")
        XCTAssertTrue(eventually(10) { engine.isConnected && engine.deviceName.contains("sysound") },
                      "the engine reopens the device when the server returns: on \(engine.deviceName)")
        XCTAssertTrue(Pulse.reopensAfterReturn(ownStream: engine.playsOnOwnStream).contains(engine.reconnections),
                      "\(engine.reconnections) reopens on \(Pulse.server) (Pulse.reopensAfterReturn)")
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
