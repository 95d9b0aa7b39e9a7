import Foundation
import SysoundTestSupport
import XCTest
@testable import SysoundAudio
import SysoundCore
import SysoundPlatform

/// The engine's loop wakes for events, not polls (docs/architecture.md, "The
/// one event loop"): counted as the voluntary context switches of the loop's
/// thread (each sleep in epoll_wait is one), on OpenAL Soft's device here and
/// on the own stream in the subclass, with the private server of
/// Tests/fixture/with-pulse.sh or with-pipewire.sh.
class LoopWakeTests: XCTestCase {
    /// The loop the engines under test run on, alone on its thread (named so
    /// that /proc finds it); shared by the tests, whose engines are shut down.
    static let host = Result { () throws(EventLoopError) in try LoopHost.ownThread(name: threadName) }
    static let threadName = "sysound-wakes"

    /// Loop wake-ups one sound may cost beyond the request's own.
    class var allowedWakes: Int { 3 }
    /// On OpenAL Soft's device an embedded play hands its voice to the loop
    /// (`AudioMonitor.wake`, a post): the daemon's request wakes it anyway.
    class var requestWakes: Int { 1 }

    func engine(_ configure: (inout AudioSettings) -> Void = { _ in }) throws -> (AudioEngine, Clip) {
        _ = try PulseFixture.require()
        var s = AudioSettings()
        s.backend = (type(of: self) as? OutputSelecting.Type)?.backend ?? .openal
        s.idlePauseMilliseconds = 300
        configure(&s)
        let engine = try AudioEngine(settings: s, output: .device, host: try Self.host.get(), realtime: .asTheDaemon)
        addTeardownBlock { engine.shutdown() }
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.15, amplitude: 0.5), to: try Fixture.directory(self), name: "tap.wav")
        XCTAssertTrue(engine.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        return (engine, try engine.clip(named: "tap"))
    }

    /// Times the loop's thread went to sleep so far (voluntary_ctxt_switches).
    static func loopSleeps() throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        for tid in tasks {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            guard comm == threadName else { continue }
            let status = try String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8)
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                return Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? -1
            }
        }
        throw XCTSkip("no thread named \(threadName)")
    }

    /// One 150 ms sound, from a paused device to paused again: the loop wakes
    /// for the voice's end (told by the render, or foreseen on OpenAL Soft's
    /// device) and for the idle pause — not every 5 ms while it plays.
    func testOneSoundWakesTheLoopAFewTimesNotEveryFewMilliseconds() throws {
        let (engine, clip) = try engine()
        XCTAssertTrue(eventually(3) { engine.isOutputPaused }, "the device pauses after 300 ms idle")
        usleep(100_000)
        let ended = DispatchSemaphore(value: 0)
        let before = try Self.loopSleeps()
        let v = try engine.play(clip)
        engine.whenEnded(v) { ended.signal() }
        XCTAssertEqual(ended.wait(timeout: .now() + 2), .success, "the voice's end is told")
        XCTAssertTrue(eventually(2) { engine.isOutputPaused && engine.idlePauses >= 2 }, "paused again after the sound")
        usleep(50_000)
        let woke = try Self.loopSleeps() - before
        print("loop wake-ups for one 150 ms sound on \(engine.playsOnOwnStream ? "the own stream" : "OpenAL Soft's device"): \(woke)")
        XCTAssertLessThanOrEqual(woke, Self.requestWakes + Self.allowedWakes, "wake-ups of the loop for one sound")
    }

    /// A ducking voice lowers a long sound and its stop restores it, at
    /// once: the play and the stop set the ramps moving (on OpenAL Soft's
    /// device they have the check step them), not a check at the long
    /// sound's end, seconds later.
    func testADuckMovesAtThePlayAndTheStopNotAtTheNextEnd() throws {
        let (engine, _) = try engine()
        let path = try Fixture.write(Fixture.tone(frequency: 500, seconds: 3, amplitude: 0.2), to: try Fixture.directory(self), name: "long.wav")
        XCTAssertTrue(engine.preload([ClipSource(name: "long", path: path)]).failures.isEmpty)
        let long = try engine.clip(named: "long")
        let duckLevel = { engine.locked { engine.core.duckRamp.level } }
        _ = try engine.play(long)
        let ducker = try engine.play(long, gain: 0, category: .playback, duck: true)
        XCTAssertTrue(eventually(0.5) { duckLevel() == engine.settings.duckGain }, "ducked: \(duckLevel())")
        engine.stop(ducker)
        XCTAssertTrue(eventually(0.5) { duckLevel() == 1 }, "restored: \(duckLevel())")
        XCTAssertTrue(engine.hasActiveVoices, "within the long sound")
    }

    /// A voice paused by an interruption has no end to foresee; resumed, it
    /// has, and its end is told.
    func testAVoiceResumedAfterAnInterruptionIsToldToEnd() throws {
        let (engine, clip) = try engine()
        let ended = DispatchSemaphore(value: 0)
        let v = try engine.play(clip, category: .playback)
        engine.whenEnded(v) { ended.signal() }
        engine.beginInterruption()
        usleep(300_000)
        XCTAssertTrue(engine.isPlaying(v), "paused, not ended")
        engine.endInterruption(resumable: true)
        XCTAssertEqual(ended.wait(timeout: .now() + 1), .success, "the resumed voice's end is told")
    }

    /// Paused, the engine arms no timer: its loop sleeps until something happens.
    func testAPausedEngineLeavesItsLoopAsleep() throws {
        let (engine, clip) = try engine()
        let v = try engine.play(clip)
        XCTAssertTrue(engine.wait(for: v, timeout: 2))
        XCTAssertTrue(eventually(3) { engine.isOutputPaused }, "the device pauses after 300 ms idle")
        usleep(200_000)
        let before = try Self.loopSleeps()
        sleep(3)
        XCTAssertEqual(try Self.loopSleeps() - before, 0, "loop wake-ups over 3 s at rest")
        XCTAssertTrue(engine.isOutputPaused)
    }
}

/// The same on sysound's own stream: the play reaches the stream's thread
/// (its kick) without the loop.
final class StreamLoopWakeTests: LoopWakeTests, OutputSelecting {
    static let backend = AudioBackend.pulse
    override class var requestWakes: Int { 0 }

    // Declared here so that test discovery on Linux lists them for this class too.
    override func testOneSoundWakesTheLoopAFewTimesNotEveryFewMilliseconds() throws {
        try super.testOneSoundWakesTheLoopAFewTimesNotEveryFewMilliseconds()
    }

    override func testAPausedEngineLeavesItsLoopAsleep() throws {
        try super.testAPausedEngineLeavesItsLoopAsleep()
    }

    override func testAVoiceResumedAfterAnInterruptionIsToldToEnd() throws {
        try super.testAVoiceResumedAfterAnInterruptionIsToldToEnd()
    }

    override func testADuckMovesAtThePlayAndTheStopNotAtTheNextEnd() throws {
        try super.testADuckMovesAtThePlayAndTheStopNotAtTheNextEnd()
    }
}
