import Foundation
import SysoundCore
import SysoundPlatform
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// A device engine runs on a loop and workers it is given (a `LoopHost`):
/// its timers are the loop's, its device calls the workers' (AudioMonitor.swift),
/// on the private PulseAudio server of Tests/fixture/with-pulse.sh.
final class AudioLoopTests: XCTestCase {
    /// A loop that is not running yet, with two workers; stopped at teardown.
    func idleHost() throws -> LoopHost {
        let loop = try EventLoop()
        let workers = try WorkerPool(size: 2, name: "test-audio-work", loop: loop)
        addTeardownBlock {
            loop.stop()
            workers.shutdown()
        }
        return LoopHost(loop: loop, workers: workers)
    }

    /// On OpenAL Soft's own device, whose pause, resume and reopen wait for
    /// the sound server: what these tests block. (The own stream's cork does
    /// not wait; its reopen is PulseStreamTests'.)
    func engine(on host: LoopHost, idle: Double) throws -> (AudioEngine, Clip) {
        let dir = try Fixture.directory(self)
        var s = AudioSettings()
        s.idlePauseMilliseconds = idle
        s.backend = .openal
        let engine = try AudioEngine(settings: s, output: .device, host: host)
        addTeardownBlock { engine.shutdown() }
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.05, amplitude: 0.5), to: dir, name: "tap.wav")
        XCTAssertTrue(engine.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        return (engine, try engine.clip(named: "tap"))
    }

    /// The PulseAudio server's PID (pulse.pid of the fixture).
    func serverPID(_ p: PulseFixture) throws -> pid_t {
        let text = try String(contentsOfFile: p.directory + "/pulse.pid", encoding: .utf8)
        return try XCTUnwrap(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), "pulse.pid: \(text)")
    }

    /// The longest a closure posted to `loop` every 5 ms waited for it, over
    /// `seconds`. The device calls these tests block stay blocked until the
    /// test releases them, so a loop that waited for one would never answer:
    /// the bounds below (1 s) only absorb the scheduling delays of a loaded
    /// machine (these tests run at nice 19 beside other builds).
    func longestLoopDelay(_ loop: EventLoop, seconds: Double) -> Double {
        let worst = Locked(0.0)
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            let posted = Date()
            let ran = DispatchSemaphore(value: 0)
            loop.post {
                worst.withLock { $0 = max($0, Date().timeIntervalSince(posted)) }
                ran.signal()
            }
            if ran.wait(timeout: .now() + 5) == .timedOut { return .infinity }
            usleep(5_000)
        }
        return worst.withLock { $0 }
    }

    /// How long `play` takes when called on the loop's thread, and its result.
    func playOnLoop(_ engine: AudioEngine, _ clip: Clip, _ loop: EventLoop) -> (seconds: Double, played: Bool) {
        let result = Locked<(Double, Bool)>((.infinity, false))
        let done = DispatchSemaphore(value: 0)
        loop.post {
            let start = Date()
            let played = (try? engine.play(clip)) != nil
            result.withLock { $0 = (Date().timeIntervalSince(start), played) }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 5)
        return result.withLock { $0 }
    }

    /// The idle pause and the resume come from the host's loop: while it does
    /// not run, an idle device is never paused; once it runs, it is, and a
    /// play has it resumed (the stream uncorks) and paused again later.
    func testTheIdlePauseAndResumeAreDrivenByTheHostLoop() throws {
        let p = try PulseFixture.require()
        let host = try idleHost()
        // Idle 400 ms: long enough for pactl to see the resumed stream before the next pause.
        let (engine, clip) = try engine(on: host, idle: 400)
        usleep(1_000_000)
        XCTAssertFalse(engine.isOutputPaused, "no loop runs the engine's timers: nothing pauses it")
        XCTAssertEqual(engine.idlePauses, 0)
        try host.loop.runOnThread(name: "test-audio-loop")
        XCTAssertTrue(eventually(2) { engine.isOutputPaused }, "the loop's idle timer pauses the device")
        XCTAssertTrue(eventually(2) { (try? p.sinkInputs())?.contains("Corked: yes") == true }, "the paused stream is corked")
        let (_, played) = playOnLoop(engine, clip, host.loop)
        XCTAssertTrue(played)
        XCTAssertFalse(engine.isOutputPaused)
        XCTAssertTrue(eventually(2) { (try? p.sinkInputs())?.contains("Corked: no") == true }, "a worker resumed the device")
        XCTAssertTrue(eventually(2) { engine.idlePauses == 2 }, "paused again once idle: \(engine.idlePauses) pauses")
    }

    /// A voice heard to its end (`whenHeard`: a `wait=1` reply, D-Bus
    /// `FeedbackEnded`, `Playback.finished`) is told on the engine's loop, its
    /// tail a timer there: while the loop does not run, the news waits however
    /// long ago the voice ended; once it runs, the loop thread brings it.
    func testAVoiceHeardToItsEndIsToldOnTheEnginesLoop() throws {
        _ = try PulseFixture.require()
        let host = try idleHost()
        let dir = try Fixture.directory(self)
        var s = AudioSettings()
        s.backend = .pulse  // the own stream's render ends the voice: no loop needed for that
        let engine = try AudioEngine(settings: s, output: .device, host: host)
        addTeardownBlock { engine.shutdown() }
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.05, amplitude: 0.5), to: dir, name: "tap.wav")
        XCTAssertTrue(engine.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        let voice = try engine.play(try engine.clip(named: "tap"))
        let told = DispatchSemaphore(value: 0)
        let onLoop = Locked<[Bool]>([])
        engine.whenHeard(voice) {
            onLoop.withLock { $0.append(host.loop.isLoopThread) }
            told.signal()
        }
        XCTAssertTrue(engine.wait(for: voice, timeout: 5), "the stream played the voice out")
        // Longer than any tail (AudioEngine.longestTail): a timer off the loop would have fired.
        XCTAssertEqual(told.wait(timeout: .now() + 0.7), .timedOut, "told while the loop did not run")
        try host.loop.runOnThread(name: "test-audio-loop")
        XCTAssertEqual(told.wait(timeout: .now() + 5), .success, "told once the loop runs")
        XCTAssertEqual(onLoop.withLock { $0 }, [true], "told on the loop's thread, once")
    }

    /// The server stopped (SIGSTOP) while a worker pauses the device: the
    /// pause waits inside OpenAL Soft, and the loop still serves every other
    /// request at once (a posted job, a play); the sound comes after SIGCONT.
    func testAPauseBlockedByAStoppedServerDelaysNothingOnTheLoop() throws {
        let p = try PulseFixture.require()
        let host = try LoopHost.ownThread(name: "test-audio-loop")
        let server = try serverPID(p)
        let (engine, clip) = try engine(on: host, idle: 100)
        XCTAssertEqual(kill(server, SIGSTOP), 0)
        var continued = false
        defer { if !continued { kill(server, SIGCONT) } }
        XCTAssertTrue(eventually(2) { engine.isOutputPaused }, "the pause begins on a worker")
        XCTAssertTrue(engine.locked { if case .pausing = engine.core.idlePause { true } else { false } }, "the pause waits for the stopped server")
        let delay = longestLoopDelay(host.loop, seconds: 0.5)
        XCTAssertLessThan(delay, 1, "the loop answered within \(delay * 1000) ms while the pause waited")
        let (took, played) = playOnLoop(engine, clip, host.loop)
        XCTAssertTrue(played)
        XCTAssertLessThan(took, 1, "play on the loop waited \(took * 1000) ms for the pause")
        XCTAssertTrue(engine.locked { if case .pausing = engine.core.idlePause { true } else { false } }, "the pause was still blocked during those requests")
        kill(server, SIGCONT)
        continued = true
        XCTAssertTrue(eventually(3) { !engine.locked { engine.core.idlePause.callInFlight } }, "the pause returns and the device resumes")
        XCTAssertTrue(eventually(3) { engine.idlePauses >= 2 }, "and pauses again when idle")
    }

    /// A server socket that accepts connections (the kernel's backlog) and
    /// never answers: a sound server that hangs. Closed and removed by `close`.
    struct SilentServer {
        let fd: Int32, path: String
        init(path: String) throws {
            self.path = path
            unlink(path)
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let bound = UnixSocket.withAddress(path) { bind(fd, $0, $1) }
            guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw FixtureError("cannot listen on \(path): errno \(errno)") }
        }
        func close() {
            Glibc.close(fd)
            unlink(path)
        }
    }

    /// After a loss, reopening the device against a server that accepts the
    /// connection and never answers waits on a worker; the loop serves
    /// meanwhile, and a play fails at once with `.deviceUnavailable`. Once the
    /// real server is back the reopen completes.
    func testAReopenBlockedByAHungServerDelaysNothingOnTheLoop() throws {
        let p = try PulseFixture.require()
        let socketPath = String(try XCTUnwrap(ProcessInfo.processInfo.environment["PULSE_SERVER"]).dropFirst("unix:".count))
        let host = try LoopHost.ownThread(name: "test-audio-loop")
        let (engine, clip) = try engine(on: host, idle: 0)
        try p.control("stop")
        XCTAssertTrue(eventually(3) { !engine.isConnected }, "the loss is noticed")
        let hung = try SilentServer(path: socketPath)
        var restarted = false
        defer { if !restarted { hung.close(); try? p.control("start") } }
        // The next attempt connects to the hung socket and waits for an answer.
        XCTAssertTrue(eventually(4) { engine.locked { engine.core.reopening } }, "a reopen is under way")
        usleep(200_000)
        XCTAssertTrue(engine.locked { engine.core.reopening }, "the reopen waits for the hung server")
        let delay = longestLoopDelay(host.loop, seconds: 0.5)
        XCTAssertLessThan(delay, 1, "the loop answered within \(delay * 1000) ms while the reopen waited")
        let (took, played) = playOnLoop(engine, clip, host.loop)
        XCTAssertFalse(played, "no device yet")
        XCTAssertLessThan(took, 1, "play on the loop waited \(took * 1000) ms for the reopen")
        XCTAssertTrue(engine.locked { engine.core.reopening }, "the reopen was still waiting during those requests")
        hung.close()
        try p.control("start")
        restarted = true
        XCTAssertTrue(eventually(10) { engine.isConnected }, "the reopen completes once the server runs")
        // On PipeWire the reopen may land on the placeholder sink, which is
        // ended when the real sink appears: one reopen more (Pulse.reopensAfterReturn).
        XCTAssertTrue(eventually(10) { engine.isConnected && (try? engine.play(clip)) != nil }, "and plays")
    }

    /// The names of this process's threads (/proc/self/task/*/comm).
    func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Device engines add no thread of their own: every embedded engine runs
    /// on the one embedded loop and its workers (the output's audio thread
    /// aside: OpenAL Soft's mixer and libpulse's mainloop on its device, or
    /// the own stream's mainloop "sysound-audio"), and no monitor thread is left.
    func testEnginesAddNoThreadOfTheirOwn() throws {
        _ = try PulseFixture.require()
        // Named by sysound (OpenAL Soft's and libpulse's threads keep the
        // process's name), but for the one audio thread every own stream is
        // rendered on (PulseConnection's), which earlier tests' engines the
        // process keeps (the library's) may have opened already.
        let audio = { self.threadNames().filter { $0 == "sysound-audio" }.count }
        let ours = { self.threadNames().filter { $0.hasPrefix("sysound-") && $0 != "sysound-audio" }.sorted() }
        let first = try AudioEngine(output: .device)
        defer { first.shutdown() }
        let before = ours()
        XCTAssertEqual(before.filter { $0 == "sysound-loop" }.count, 1, "the embedded loop runs: \(before)")
        let more = try (0..<3).map { _ in try AudioEngine(output: .device) }
        defer { more.forEach { $0.shutdown() } }
        let after = ours()
        XCTAssertEqual(after, before, "three more engines started no sysound thread")
        let streams = ([first] + more).filter(\.playsOnOwnStream).count
        XCTAssertGreaterThan(streams, 0, "the fixture's server answers: the engines play on own streams")
        XCTAssertEqual(audio(), 1, "one audio thread for every own stream, no more")
        XCTAssertFalse(after.contains { $0.contains("monitor") }, "no monitor thread: \(after)")
    }
}
