import SysoundCore
import Foundation
import SysoundPlatform
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// The engine hands its audio threads to `RealtimeThreads` as they start:
/// libpulse's threaded-ml and OpenAL Soft's mixer at open, and the new mixer
/// at each resume after an idle pause. The policies are read back from the
/// kernel (the direct way needs root, as in CI).
final class RealtimeAudioThreadsTests: XCTestCase {
    /// The threads of this process that are real-time now, by name.
    func realtimeThreads() -> [pid_t: String] {
        var found: [pid_t: String] = [:]
        for tid in ThreadCensus.threads() {
            if let p = SchedulerCalls.policy(of: tid), SchedulerCalls.isRealtime(policy: p) {
                found[tid] = ThreadCensus.name(of: tid) ?? "?"
            }
        }
        return found
    }

    /// The real-time threads this test's engine added to those before it
    /// (another test's that outlived its engine would be its own failure).
    func added(since before: [pid_t: String]) -> [pid_t: String] {
        realtimeThreads().filter { before[$0.key] != $0.value }
    }

    func testTheDeviceAudioThreadsRunRealtimeAfterOpenAndAfterEachResume() throws {
        let p = try PulseFixture.require()
        try RealtimeScheduling.require() // the direct way: root (CI) or an RLIMIT_RTPRIO
        let before = realtimeThreads()
        let log = LogCapture()
        let rt = RealtimeThreads(priority: 3, broker: nil, logger: log.logger)
        var s = AudioSettings()
        s.idlePauseMilliseconds = 150
        s.backend = .openal  // OpenAL Soft's own device: its threads, and a new mixer per resume
        let e = try AudioEngine(settings: s, output: .device, realtime: rt)
        var open = true
        defer { if open { e.shutdown() } }
        let opened = added(since: before)
        XCTAssertEqual(opened.values.filter { $0 == "threaded-ml" }.count, 1, "libpulse's mainloop: \(opened)")
        XCTAssertEqual(Set(opened.values), ["threaded-ml", "sysound-alsoft"], "and OpenAL Soft's mixer, named for it: \(opened)")
        XCTAssertNotEqual(ThreadCensus.name(of: SchedulerCalls.currentThread()), "sysound-alsoft", "the caller has its name back")
        XCTAssertTrue(log.messages.first?.contains("SCHED_FIFO 3, set directly") == true, "\(log.messages)")
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.05, amplitude: 0.5), to: dir, name: "tap.wav")
        XCTAssertTrue(e.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        let tap = try e.clip(named: "tap")
        for round in 1...2 {
            XCTAssertTrue(eventually(3) { e.isOutputPaused }, "round \(round): paused when idle")
            let paused = added(since: before)
            let bytes = p.recordedBytes
            let v = try e.play(tap)
            // Looked at while the device runs: the next idle pause (150 ms) joins this mixer.
            var resumed = paused
            XCTAssertTrue(eventually(0.1) { resumed = self.added(since: before); return resumed.count == paused.count + 1 },
                          "round \(round): the mixer the resume started is real-time: \(paused) → \(resumed)")
            XCTAssertTrue(e.wait(for: v, timeout: 2))
            usleep(100_000)
            XCTAssertEqual(Fixture.peak(Fixture.channel(try p.recorded(since: bytes), 0)), 0.5, accuracy: 0.05, "round \(round): the tap played")
        }
        e.shutdown()
        open = false
        XCTAssertTrue(eventually(2) { self.added(since: before).isEmpty }, "no real-time thread outlives its engine: \(added(since: before))")
    }

    /// The own stream has one audio thread, libpulse's mainloop
    /// ("sysound-audio"), real-time from its opening; a resume (uncork)
    /// starts none.
    func testTheOwnStreamsThreadRunsRealtime() throws {
        _ = try PulseFixture.require()
        try RealtimeScheduling.require() // the direct way: root (CI) or an RLIMIT_RTPRIO
        let before = realtimeThreads()
        let rt = RealtimeThreads(priority: 3, broker: nil, logger: LogCapture().logger)
        var s = AudioSettings()
        s.backend = .pulse
        s.idlePauseMilliseconds = 150
        let e = try AudioEngine(settings: s, output: .device, realtime: rt)
        var open = true
        defer { if open { e.shutdown() } }
        let tid = try XCTUnwrap(e.audioThreadID)
        XCTAssertEqual(added(since: before), [tid: "sysound-audio"], "the stream's thread, and only it")
        XCTAssertTrue(eventually(3) { e.isOutputPaused }, "corked when idle")
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.05, amplitude: 0.5), to: dir, name: "tap.wav")
        XCTAssertTrue(e.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        XCTAssertTrue(e.wait(for: try e.play(try e.clip(named: "tap")), timeout: 2))
        XCTAssertEqual(added(since: before), [tid: "sysound-audio"], "still the one thread after the uncork")
        e.shutdown()
        open = false
        XCTAssertTrue(eventually(2) { self.added(since: before).isEmpty }, "no real-time thread outlives its engine: \(added(since: before))")
    }

    /// Neither way: the log says why, once, and the engine plays all the same.
    func testWithNeitherWayTheEngineStillPlays() throws {
        let p = try PulseFixture.require()
        var calls = SchedulerCalls.system
        calls.setFIFO = { _, _ in EPERM }
        calls.realtimeBudget = { nil } // the refusal is this test's, not the machine's cgroup
        let log = LogCapture()
        let rt = RealtimeThreads(priority: 4, broker: nil, calls: calls, logger: log.logger)
        let before = realtimeThreads()
        let e = try AudioEngine(output: .device, realtime: rt)
        defer { e.shutdown() }
        XCTAssertEqual(added(since: before), [:])
        XCTAssertEqual(log.messages.count, 1, "\(log.messages)")
        XCTAssertTrue(log.messages.first?.hasPrefix("notice audio threads at normal priority, neither way to real-time worked (sched_setscheduler(SCHED_FIFO, 4): Operation not permitted; no rtkit to ask)") == true, "\(log.messages)")
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.05, amplitude: 0.5), to: dir, name: "tap.wav")
        XCTAssertTrue(e.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        usleep(50_000)
        let bytes = p.recordedBytes
        let v = try e.play(try e.clip(named: "tap"))
        XCTAssertTrue(e.wait(for: v, timeout: 2))
        usleep(150_000)
        XCTAssertEqual(Fixture.peak(Fixture.channel(try p.recorded(since: bytes), 0)), 0.5, accuracy: 0.05, "the tap played")
    }
}
