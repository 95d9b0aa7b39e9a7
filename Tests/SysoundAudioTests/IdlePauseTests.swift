import Foundation
import SysoundTestSupport
import XCTest
@testable import SysoundAudio
import SysoundCore

/// The engine pauses its output device after an idle time and resumes it on
/// the next play (AudioEngine+Output.swift, "The idle pause"), on the private PulseAudio server of
/// Tests/fixture/with-pulse.sh.
class IdlePauseTests: XCTestCase {
    static let idle = 300.0

    /// Clip frames a recording may lack at a sound's start although the sink
    /// played them: none on OpenAL Soft's device, which never lets its stream
    /// drain while it runs; on the own stream see PulseStreamTests.
    class var recordingShadowFrames: Int { 0 }

    struct Take {
        /// The tone as the sink's monitor recorded it, from its first sample over −40 dBFS.
        var left: [Float]
        /// The right channel in the same frames (where a `ControlTone` plays).
        var right: [Float]
        /// Seconds from the play call to that sample (includes the recorder's lag).
        var onset: Double
        /// How long `play` itself took, in seconds.
        var call: Double
    }

    /// Plays `clip`, waits for its end, and cuts it out of the recording.
    func take(_ engine: AudioEngine, _ clip: Clip, _ p: PulseFixture) throws -> Take? {
        let before = p.recordedBytes
        let t0 = DispatchTime.now().uptimeNanoseconds
        let v = try engine.play(clip)
        let t1 = DispatchTime.now().uptimeNanoseconds
        XCTAssertTrue(engine.wait(for: v, timeout: 2), "the voice ends within 2 s")
        usleep(150_000)
        let recorded = try p.recorded(since: before)
        let left = Fixture.channel(recorded, 0), right = Fixture.channel(recorded, 1)
        guard let start = Fixture.onset(left, threshold: 0.01) else { return nil }
        return Take(left: Array(left[start...]), right: Array(right[start...]), onset: Double(start) / 48_000, call: Double(t1 - t0) / 1e9)
    }

    func corked(_ p: PulseFixture) throws -> Bool? {
        let text = try p.sinkInputs()
        if text.contains("Corked: yes") { return true }
        if text.contains("Corked: no") { return false }
        return nil
    }

    func testIdleDevicePausesAfterTheIdleTimeAndCorksItsStream() throws {
        let p = try PulseFixture.require()
        let (engine, clip) = try deviceEngine(try Fixture.directory(self)) { $0.idlePauseMilliseconds = Self.idle }
        XCTAssertTrue(eventually(1) { (try? self.corked(p)) == false }, "the stream runs after the device opens")
        XCTAssertFalse(engine.isOutputPaused)

        // A voice longer than the idle time keeps the device running.
        let loop = try engine.play(clip, loop: true)
        if Pulse.server == .pipewire {
            XCTAssertTrue(eventually(1) { (try? Pulse.pipewireStream())?.state == "running" }, "the playing stream's node runs in the graph")
        }
        usleep(UInt32(Self.idle * 2_000))
        XCTAssertFalse(engine.isOutputPaused, "a playing voice keeps the device running")
        engine.stop(loop)
        // The idle time counts from the last voice, not from the device's opening.
        usleep(UInt32(Self.idle * 500))
        XCTAssertFalse(engine.isOutputPaused, "paused before the idle time passed")
        XCTAssertTrue(eventually(2) { engine.isOutputPaused }, "paused after \(Self.idle) ms idle")
        XCTAssertEqual(engine.idlePauses, 1)
        XCTAssertTrue(eventually(1) { (try? self.corked(p)) == true }, "the server no longer mixes the paused stream: \((try? p.sinkInputs()) ?? "")")
        if Pulse.server == .pipewire {
            // A corked stream's node leaves the graph: PipeWire schedules it no more.
            XCTAssertTrue(eventually(1) { (try? Pulse.pipewireStream())?.state == "idle" },
                          "the paused stream's node is \(String(describing: (try? Pulse.pipewireStream())?.state))")
        }

        let v = try engine.play(clip)
        XCTAssertFalse(engine.isOutputPaused, "play resumes the device")
        // A worker resumes the device after play returns: the stream runs again soon after.
        XCTAssertTrue(eventually(1) { (try? self.corked(p)) == false }, "the stream runs again")
        XCTAssertTrue(engine.wait(for: v, timeout: 2))
        XCTAssertTrue(eventually(2) { engine.isOutputPaused }, "paused again after the next idle time")
        XCTAssertEqual(engine.idlePauses, 2)
    }

    func testNoPauseWhenTheIdleTimeIsZero() throws {
        let p = try PulseFixture.require()
        let (engine, _) = try deviceEngine(try Fixture.directory(self)) { $0.idlePauseMilliseconds = 0 }
        usleep(UInt32(Self.idle * 3_000))
        XCTAssertFalse(engine.isOutputPaused)
        XCTAssertEqual(engine.idlePauses, 0)
        XCTAssertEqual(try corked(p), false)
    }

    /// Plays at random moments around the pause: a voice started just as the
    /// monitor pauses must still play to its end (the device is never left
    /// paused under a voice), from several threads at once.
    func testPlaysRacingThePauseAllEnd() throws {
        _ = try PulseFixture.require()
        let short = Fixture.tone(frequency: 1_000, seconds: 0.02, amplitude: 0.2)
        let (engine, clip) = try deviceEngine(try Fixture.directory(self), samples: short) { $0.idlePauseMilliseconds = 20 }
        let ended = Locked(0), attempts = 3 * 15
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            var seed = UInt32(worker + 1) &* 2_654_435_761
            for _ in 0..<15 {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                usleep(20_000 + (seed >> 16) % 40_000)  // 20–60 ms: before, at and after the 20 ms idle time
                guard let v = try? engine.play(clip) else { continue }
                if engine.wait(for: v, timeout: 2) { ended.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(ended.withLock { $0 }, attempts, "every voice ended, none stuck on a paused device")
        XCTAssertGreaterThan(engine.idlePauses, 3, "the device paused between the plays")
    }

    /// OpenAL Soft waits inside alcDevicePauseSOFT until the server has
    /// corked the stream. With the server stopped (SIGSTOP: hung, swapped out)
    /// that wait must not hold the engine: `play` still returns at once, and
    /// the sound comes once the server runs again.
    func testAStoppedServerDuringThePauseDoesNotHoldUpPlay() throws {
        let p = try PulseFixture.require()
        let pidText = try String(contentsOfFile: p.directory + "/pulse.pid", encoding: .utf8)
        let server = try XCTUnwrap(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)), "pulse.pid: \(pidText)")
        let (engine, clip) = try deviceEngine(try Fixture.directory(self)) { $0.idlePauseMilliseconds = Self.idle }
        XCTAssertEqual(kill(server, SIGSTOP), 0, "SIGSTOP PulseAudio (\(server))")
        var continued = false
        defer { if !continued { kill(server, SIGCONT) } }
        // The monitor starts its pause now and waits for the stopped server.
        XCTAssertTrue(eventually(2) { engine.isOutputPaused }, "the pause begins")
        usleep(100_000)
        let returned = DispatchSemaphore(value: 0)
        let started = Date()
        Thread.detachNewThread {
            _ = try? engine.play(clip)
            returned.signal()
        }
        let prompt = returned.wait(timeout: .now() + 1) == .success
        XCTAssertTrue(prompt, "play() returns while the server is stopped in the middle of a pause")
        print(String(format: "idle pause: play() during a pause held by a stopped server took %.2f ms", Date().timeIntervalSince(started) * 1000))
        XCTAssertFalse(engine.isOutputPaused, "the play cleared the pause")
        kill(server, SIGCONT)
        continued = true
        if !prompt { _ = returned.wait(timeout: .now() + 5) }
        // Once the pause returns the monitor resumes the device; then it pauses again when idle.
        XCTAssertTrue(eventually(3) { engine.idlePauses >= 2 }, "paused again after the resume")
        let t = try take(engine, clip, p)
        XCTAssertEqual(t.map { Fixture.peak($0.left) } ?? 0, 0.5, accuracy: 0.01, "plays after the server continues")
    }

    /// The monitor arms no timer while paused; the play that resumes the
    /// device has the voice's end noticed when it ends.
    func testTheEndOfTheFirstVoiceAfterAPauseIsNoticedPromptly() throws {
        _ = try PulseFixture.require()
        let (engine, clip) = try deviceEngine(try Fixture.directory(self)) { $0.idlePauseMilliseconds = Self.idle }
        XCTAssertTrue(eventually(2) { engine.isOutputPaused })
        usleep(20_000)
        let started = Date()
        let v = try engine.play(clip)
        XCTAssertTrue(engine.wait(for: v, timeout: 2))
        let waited = Date().timeIntervalSince(started)
        XCTAssertLessThan(waited, 0.4, "the 150 ms voice's end was noticed after \(waited) s")
        XCTAssertGreaterThanOrEqual(waited, 0.14, "the voice played to its end")
    }

    /// Deterministic white noise at up to −6 dBFS, faded in and out over 5 ms.
    static func noise(seconds: Double) -> [Float] {
        let frames = Int(seconds * 48_000), fade = 240
        var state: UInt32 = 0x2545_F491
        return (0..<frames).map { i in
            state = state &* 1_664_525 &+ 1_013_904_223
            let env = Float(min(1, Double(min(i, frames - 1 - i)) / Double(fade)))
            return env * (Float(state >> 8) / Float(1 << 24) - 0.5)
        }
    }

    /// How a recorded take differs from the clip it played.
    struct Damage: Equatable, CustomStringConvertible {
        /// Clip frames missing before the first recorded one.
        var missingAtStart = 0
        /// Recorded frames that are neither the clip's next sample nor an
        /// underrun's silence: wrong level, stale data, a second copy.
        var foreign = 0
        /// Silent frames inside the take and clip frames they replaced: what a
        /// late buffer (underrun) does to any stream on a loaded machine.
        var gapFrames = 0, skipped = 0
        /// Where in the take each gap starts.
        var gapsAt: [Int] = []
        /// Clip frames never recorded at the end.
        var unfinished = 0
        var description: String { "start −\(missingAtStart), foreign \(foreign), gaps \(gapFrames)/−\(skipped), end −\(unfinished)" }
    }

    /// How far ahead a recording that stops matching is looked for in the
    /// clip (100 ms): further on, the frames count as foreign.
    static let jumpSearchFrames = 4_800

    /// Walks the take against the clip: a frame equal to the clip's next
    /// sample (within 3 steps of the null sink's 16 bits) advances both; a run
    /// of silence is an underrun's gap, after which the clip is found again,
    /// and so is a jump ahead with no silence (`jumpSearchFrames`).
    func damage(_ take: Take, clip ideal: [Float]) -> Damage {
        let r = take.left, tolerance: Float = 3 / 32_768
        func matches(_ i: Int, _ j: Int) -> Bool {
            i + 4 <= r.count && j + 4 <= ideal.count && (0..<4).allSatisfy { abs(ideal[j + $0] - r[i + $0]) <= tolerance }
        }
        var d = Damage()
        guard let crossing = Fixture.onset(ideal, threshold: 0.01), let k = (crossing..<ideal.count).first(where: { matches(0, $0) }) else {
            d.foreign = r.count
            return d
        }
        d.missingAtStart = k - crossing
        var i = 0, j = k
        while i < r.count && j < ideal.count {
            if abs(ideal[j] - r[i]) <= tolerance {
                i += 1; j += 1
            } else if r[i] == 0 {
                let gapStart = i
                while i < r.count && r[i] == 0 { i += 1 }
                d.gapFrames += i - gapStart
                d.gapsAt.append(gapStart)
                guard let again = (j..<ideal.count).first(where: { matches(i, $0) }) else { break }
                d.skipped += again - j
                j = again
            } else if let again = (j + 1..<min(j + Self.jumpSearchFrames, ideal.count)).first(where: { matches(i, $0) }) {
                // The recording jumped ahead in the clip with no silence
                // between (frames the server or the recorder lost in one
                // cycle): a gap of no length, judged like the others.
                d.gapsAt.append(i)
                d.skipped += again - j
                j = again
            } else {
                d.foreign += 1; i += 1; j += 1
            }
        }
        d.unfinished = ideal.count - j
        return d
    }

    /// The walk itself: a gap of silence and a jump ahead with none are gaps
    /// (the clip found again after each); a second copy is foreign.
    func testTheWalkTellsGapsAndJumpsFromForeignFrames() {
        let ideal = Self.noise(seconds: 0.15)
        func walk(_ left: [Float]) -> Damage {
            damage(Take(left: left, right: [], onset: 0, call: 0), clip: ideal)
        }
        let start = Fixture.onset(ideal, threshold: 0.01)!
        let clip = Array(ideal[start...])
        XCTAssertEqual(walk(clip), Damage(), "the clip itself")
        let silence = walk(Array(clip[..<2_000]) + [Float](repeating: 0, count: 128) + Array(clip[2_128...]))
        XCTAssertEqual([silence.foreign, silence.gapFrames, silence.skipped, silence.gapsAt.count], [0, 128, 128, 1], "\(silence)")
        let jump = walk(Array(clip[..<2_000]) + Array(clip[2_256...]))
        XCTAssertEqual([jump.foreign, jump.gapFrames, jump.skipped, jump.gapsAt.count, jump.unfinished], [0, 0, 256, 1, 0], "\(jump)")
        let copy = walk(Array(clip[..<2_000]) + Array(clip[1_000..<1_200]))
        XCTAssertEqual(copy.foreign, 200, "a stretch played twice is foreign: \(copy)")
    }

    /// The first sound after a pause reaches the sink whole, from its first
    /// sample, exactly as the clip, and about as soon as a warm play (device
    /// running). On this shared 2-core machine both servers now and then drop
    /// audio of every stream at once (a CI run on PipeWire: gaps in 3 of 7
    /// warm takes and in all 7 after a pause): a gap counts against the
    /// stream only where a control stream's tone held in the same frames
    /// (`ControlTone`), as the own stream's other tests judge it.
    func testFirstPlayAfterAPauseArrivesWholeLikeAWarmPlay() throws {
        let p = try PulseFixture.require()
        let dir = try Fixture.directory(self)
        // Noise, not a tone: after an underrun's gap it is found again at one
        // place only. On the left only: the control plays on the right.
        let ideal = Self.noise(seconds: 0.15)
        let (engine, clip) = try deviceEngine(dir, samples: ideal.flatMap { [$0, 0] }, channels: 2) { $0.idlePauseMilliseconds = Self.idle }
        let control = try ControlTone()
        defer { control.stop() }
        var warm: [Take] = [], resumed: [Take] = []
        for _ in 0..<7 {
            XCTAssertTrue(eventually(2) { engine.isOutputPaused })
            usleep(50_000)
            resumed += try take(engine, clip, p).map { [$0] } ?? []
            // Within the idle time of the last play: the device still runs.
            XCTAssertFalse(engine.isOutputPaused)
            warm += try take(engine, clip, p).map { [$0] } ?? []
        }
        XCTAssertEqual(warm.count, 7, "every warm play was found in the recording")
        XCTAssertEqual(resumed.count, 7, "every play after a pause was found in the recording")
        let warmDamage = warm.map { damage($0, clip: ideal) }, resumedDamage = resumed.map { damage($0, clip: ideal) }
        let warmOwn = zip(warm, warmDamage).map { ControlTone.own($1.gapsAt, window: 1, control: $0.right) }
        let resumedOwn = zip(resumed, resumedDamage).map { ControlTone.own($1.gapsAt, window: 1, control: $0.right) }
        print("idle pause: warm takes \(warmDamage), gaps of their own at \(warmOwn)\nidle pause: takes after a pause \(resumedDamage), gaps of their own at \(resumedOwn)")
        for d in resumedDamage {
            XCTAssertEqual(d.foreign, 0, "after a pause every recorded sample is the clip's, in order (or an underrun's silence): \(d)")
        }
        // A take is whole when its start is within the recording's shadow, no gap is its own, and its end was written.
        let shadow = Self.recordingShadowFrames
        let starts = { (d: [Damage]) in d.filter { $0.missingAtStart <= shadow }.count }
        let whole = { (d: [Damage], own: [[Int]]) in
            zip(d, own).filter { $0.missingAtStart <= shadow && $0.unfinished == 0 && $1.isEmpty }.count
        }
        // Compared with the warm takes of the same run, with a margin of 2 takes.
        XCTAssertGreaterThanOrEqual(starts(resumedDamage), starts(warmDamage) - 2, "after a pause the clip starts at its first sample as often as warm")
        XCTAssertGreaterThanOrEqual(whole(resumedDamage, resumedOwn), min(whole(warmDamage, warmOwn), 3) - 2,
                                    "after a pause takes arrive without a gap of their own as often as warm")
        XCTAssertGreaterThan(Fixture.peak(resumed[0].right), 0.45, "the control played beside the clip")
        func median(_ x: [Double]) -> Double { x.isEmpty ? .nan : x.sorted()[x.count / 2] * 1000 }
        print(String(format: "idle pause: onset warm %.2f ms, after pause %.2f ms (medians, incl. recorder); play() warm %.3f ms, after pause %.3f ms",
                     median(warm.map(\.onset)), median(resumed.map(\.onset)), median(warm.map(\.call)), median(resumed.map(\.call))))
        // Generous: the bench measures it (figure 2); this catches a resume that waits for the server.
        let warmOnset = median(warm.map(\.onset))
        XCTAssertLessThan(median(resumed.map(\.onset)), warmOnset + Pulse.resumeAllowanceMilliseconds(warmOnset: warmOnset),
                          "the first sound after a pause is not late (Pulse.resumeAllowanceMilliseconds)")
    }

    /// Neither output is watched while paused: the own stream's failure
    /// and OpenAL Soft's disconnect event (AL_SOFTX_events) are told.
    func testDeviceLossWhilePausedIsNoticedAndTheReturnPlays() throws {
        let p = try PulseFixture.require()
        let (engine, clip) = try deviceEngine(try Fixture.directory(self)) { $0.idlePauseMilliseconds = Self.idle }
        XCTAssertTrue(eventually(2) { engine.isOutputPaused })
        try p.control("stop")
        XCTAssertTrue(eventually(3) { !engine.isConnected }, "a loss is noticed while paused")
        XCTAssertFalse(engine.isOutputPaused, "a closed device is not paused")
        XCTAssertThrowsError(try engine.play(clip)) { XCTAssertEqual($0 as? AudioError, .deviceUnavailable) }
        try p.control("start")
        XCTAssertTrue(eventually(10) { engine.isConnected && engine.deviceName.contains("sysound") },
                      "the engine reopens the device when the server returns: on \(engine.deviceName)")
        XCTAssertTrue(Pulse.reopensAfterReturn(ownStream: engine.playsOnOwnStream).contains(engine.reconnections),
                      "\(engine.reconnections) reopens on \(Pulse.server) (Pulse.reopensAfterReturn)")
        let t = try take(engine, clip, p)
        XCTAssertEqual(t.map { Fixture.peak($0.left) } ?? 0, 0.5, accuracy: 0.01, "plays on the reopened device")
        XCTAssertTrue(eventually(2) { engine.isOutputPaused }, "the reopened device pauses when idle too")
        XCTAssertNotNil(try take(engine, clip, p), "and resumes")
    }

    /// The server returns before its sink: PipeWire answers before any sink
    /// exists and offers a placeholder (wireplumber's auto_null, "Dummy
    /// Output"), as PulseAudio does with module-always-sink, and an engine reopening in
    /// that window lands there. Once the real sink appears (made the
    /// default), the engine plays there and says so: sysound's own stream is
    /// moved there by the server (PulseStream's moved callback names the new
    /// sink), OpenAL Soft's (which may not move) is ended and reopened. The
    /// window is provoked, not waited for: the server restarts without the
    /// sink (`start-servers`), the engine reopens and pauses, then the sink
    /// comes (`add-sink`).
    func testASinkAppearingAfterTheServerReturnedIsWhereItPlays() throws {
        let p = try PulseFixture.require()
        let (engine, clip) = try deviceEngine(try Fixture.directory(self)) { $0.idlePauseMilliseconds = Self.idle }
        try p.control("stop")
        var restored = false
        defer { if !restored { try? p.control("stop"); try? p.control("start") } }
        XCTAssertTrue(eventually(3) { !engine.isConnected }, "the loss is noticed")
        try p.control("start-servers")
        XCTAssertTrue(eventually(10) { engine.isConnected }, "the engine reopens on the placeholder")
        let placeholder = engine.deviceName
        XCTAssertFalse(placeholder.contains("sysound"), "no sink yet: \(placeholder)")
        XCTAssertTrue(eventually(2) { engine.isOutputPaused }, "and pauses there when idle")
        try p.control("add-sink")
        restored = true
        XCTAssertTrue(eventually(5) { engine.isConnected && engine.deviceName.contains("sysound") },
                      "the engine names the sink that appeared: \(engine.deviceName), was \(placeholder)")
        XCTAssertEqual(engine.reconnections, engine.playsOnOwnStream ? 1 : 2, "own stream moved, OpenAL Soft's reopened")
        let t = try take(engine, clip, p)
        XCTAssertEqual(t.map { Fixture.peak($0.left) } ?? 0, 0.5, accuracy: 0.01, "plays on the sink that appeared")
        XCTAssertTrue(eventually(2) { engine.isOutputPaused }, "pauses when idle there")
        XCTAssertNotNil(try take(engine, clip, p), "and resumes")
    }
}
