import Foundation
import SysoundCore
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// The own stream's `media.role` (PulseStream+Role.swift), as the server
/// lists it: what its role policies key on. Engine level; the daemon's one
/// stream per role is MediaRoleTests (EndToEndTests).
final class StreamRoleTests: XCTestCase {
    /// The sink inputs of this process, as `pactl list sink-inputs` gives them.
    func ownSinkInputs(_ p: PulseFixture) throws -> [String] {
        try p.sinkInputs().components(separatedBy: "Sink Input #").dropFirst()
            .filter { $0.contains("application.process.id = \"\(getpid())\"") }
    }

    func engine(_ role: MediaRole) throws -> AudioEngine {
        var s = AudioSettings()
        s.backend = .pulse
        let engine = try AudioEngine(settings: s, output: .device, realtime: .asTheDaemon, role: role)
        addTeardownBlock { engine.shutdown() }
        return engine
    }

    func testTheStreamCarriesItsRoleAndTwoRolesAreTwoStreams() throws {
        let p = try PulseFixture.require()
        let event = try engine(.event)
        let alarm = try engine(.alarm)
        XCTAssertTrue(event.playsOnOwnStream && alarm.playsOnOwnStream)
        let entries = try ownSinkInputs(p)
        XCTAssertEqual(entries.count, 2, "\(entries)")
        XCTAssertTrue(entries.contains { $0.contains("media.role = \"event\"") && $0.contains("media.name = \"sysound\"") }, "\(entries)")
        XCTAssertTrue(entries.contains { $0.contains("media.role = \"Alarm\"") && $0.contains("media.name = \"sysound (Alarm)\"") }, "\(entries)")
    }

    /// This process's sound-server clients (`pactl list clients`).
    func ownClients() throws -> Int {
        let result = try Spawned.run("/usr/bin/pactl", ["list", "clients"])
        guard result.status == 0 else { throw FixtureError("pactl list clients: \(result.stderr)") }
        return result.stdout.components(separatedBy: "application.process.id = \"\(getpid())\"").count - 1
    }

    /// This process's threads named `sysound-audio`: the own streams' mainloop.
    func audioThreads() -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { tid in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == "sysound-audio" ? Int32(tid) : nil
        }
    }

    /// A looping 1 kHz tone preloaded as "tone" on `engine`.
    func loopingTone(_ engine: AudioEngine) throws -> Clip {
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.2, amplitude: 0.5), to: dir, name: "tone.wav")
        XCTAssertTrue(engine.preload([ClipSource(name: "tone", path: path)]).failures.isEmpty)
        return try engine.clip(named: "tone")
    }

    /// Bytes `engine`'s stream writes within `seconds`.
    func written(by engine: AudioEngine, within seconds: Double) -> UInt64 {
        let before = engine.streamBytesWritten ?? 0
        usleep(useconds_t(seconds * 1e6))
        return (engine.streamBytesWritten ?? 0) - before
    }

    /// The role streams share one sound-server connection and one real-time
    /// thread (PulseConnection): an alarm playing beside the event stream
    /// adds no client and no thread, and both streams are rendered by the
    /// same `sysound-audio` thread. Each role had its own before (3 clients
    /// and 2 more threads with an alarm and a ringtone open).
    func testEveryRolesStreamIsOnOneConnectionAndOneThread() throws {
        try PulseFixture.require()
        // Earlier tests' engines may still hold the process's connection: theirs is ours too.
        let clientsBefore = try ownClients()
        let event = try engine(.event), alarm = try engine(.alarm)
        let clip = try loopingTone(alarm)
        _ = try alarm.play(clip, category: .playback, loop: true)
        XCTAssertTrue(eventually(2) { (alarm.streamBytesWritten ?? 0) > 0 }, "the alarm plays")
        XCTAssertEqual(try ownClients(), max(clientsBefore, 1), "one sound-server client for both roles' streams")
        XCTAssertEqual(audioThreads().count, 1, "one sysound-audio thread: \(audioThreads())")
        XCTAssertEqual(event.audioThreadID, alarm.audioThreadID, "the same thread renders both streams")
        XCTAssertEqual(event.audioThreadID, audioThreads().first)
        let ringtone = try engine(.ringtone)
        XCTAssertEqual(try ownClients(), max(clientsBefore, 1), "a third role's stream joins it too")
        XCTAssertEqual(ringtone.audioThreadID, event.audioThreadID)
    }

    /// Releasing a role closes only its stream: the connection stays for
    /// the others, and the event stream goes on playing on it.
    func testReleasingARoleLeavesTheEventStreamPlaying() throws {
        try PulseFixture.require()
        let event = try engine(.event), alarm = try engine(.alarm)
        let tone = try loopingTone(event)
        let voice = try event.play(tone, category: .playback, loop: true)
        defer { event.stop(voice) }
        XCTAssertGreaterThan(written(by: event, within: 0.2), 0, "the event stream plays")
        let thread = event.audioThreadID
        alarm.shutdown()
        XCTAssertTrue(event.isConnected, "the alarm's close left the event stream's connection up")
        // 0.3 s of a stream that writes 48 000 frames of 8 bytes a second: at least a third of that.
        XCTAssertGreaterThan(written(by: event, within: 0.3), 48_000 * 8 / 10, "the event stream still writes its loop")
        XCTAssertEqual(audioThreads(), thread.map { [$0] }, "the one thread stays, the event stream's")
    }

    /// A role's stream closed while its requests to the server are still out
    /// (the timing update its first write asks for, its sink's description):
    /// the connection lives on for the other roles, so their replies still
    /// come, and must not reach the closed stream (seen: a crash in the
    /// timing reply's callback after the library's engine closed).
    func testARoleClosedWithRequestsOutLeavesTheConnectionSound() throws {
        try PulseFixture.require()
        let event = try engine(.event)
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.1, amplitude: 0.5), to: dir, name: "tap.wav")
        for _ in 0..<15 {
            var s = AudioSettings()
            s.backend = .pulse
            let alarm = try AudioEngine(settings: s, output: .device, realtime: .asTheDaemon, role: .alarm)
            XCTAssertTrue(alarm.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
            _ = try alarm.play(alarm.clip(named: "tap"))
            // Closed at once, its first write's timing request still out.
            alarm.shutdown()
        }
        usleep(200_000)  // the replies to what the closed streams asked come meanwhile
        XCTAssertTrue(event.isConnected, "the event stream's connection is up")
        XCTAssertEqual(try ownClients(), 1)
    }

    /// The server's loss fails every stream on the one connection; when the
    /// server returns both roles' streams come back, on one new connection.
    func testBothRolesStreamsComeBackOnOneConnectionAfterTheServerReturns() throws {
        let p = try PulseFixture.require()
        let event = try engine(.event), alarm = try engine(.alarm)
        try p.control("stop")
        var back = false
        defer { if !back { try? p.control("start") } }
        XCTAssertTrue(eventually(3) { !event.isConnected && !alarm.isConnected }, "both streams are told the loss")
        try p.control("start")
        back = true
        XCTAssertTrue(eventually(10) { event.isConnected && alarm.isConnected }, "both streams come back")
        XCTAssertEqual(try ownClients(), 1, "on one connection")
        XCTAssertEqual(audioThreads().count, 1, "one sysound-audio thread: \(audioThreads())")
        XCTAssertEqual(event.audioThreadID, alarm.audioThreadID)
        let tone = try loopingTone(alarm)
        let voice = try alarm.play(tone, category: .playback, loop: true)
        defer { alarm.stop(voice) }
        XCTAssertTrue(eventually(2) { (alarm.streamBytesWritten ?? 0) > 0 }, "the alarm plays on the new connection")
    }

    /// Each role's engine has its own lock: while the event engine's is held
    /// (a long swap, a stalled caller), an alarm still plays and the alarm
    /// stream's real-time render writes it. With one process-wide audio lock
    /// both waited for the event engine.
    func testOneRolesStreamPlaysWhileAnotherRolesEngineIsHeld() throws {
        try PulseFixture.require()
        let dir = try Fixture.directory(self)
        let event = try engine(.event), alarm = try engine(.alarm)
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.5, amplitude: 0.5), to: dir, name: "tone.wav")
        XCTAssertTrue(alarm.preload([ClipSource(name: "tone", path: path)]).failures.isEmpty)
        let clip = try alarm.clip(named: "tone")
        let before = alarm.streamBytesWritten ?? 0
        let letGo = event.holdLockOnAThread()
        defer { letGo() }
        // Every call on the alarm engine from another thread: this one only waits, with a bound.
        let done = DispatchSemaphore(value: 0)
        let written = ManagedAtomicFlag()
        Thread {
            // 0.1 s of stereo float32 at 48 kHz.
            if (try? alarm.play(clip)) != nil, eventually(5, { (alarm.streamBytesWritten ?? 0) >= before + 4_800 * 8 }) {
                written.set()
            }
            done.signal()
        }.start()
        // A bound for a deadlock, not a measure of speed.
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the alarm played while the event engine's lock was held")
        XCTAssertTrue(written.isSet, "and the alarm stream's render wrote it")
    }

    /// A voice's id names its engine's role; the engine's end event matches it.
    func testAVoiceIdNamesItsEnginesRole() throws {
        try PulseFixture.require()
        let dir = try Fixture.directory(self)
        let e = try engine(.ringtone)
        let path = try Fixture.write(Fixture.tone(frequency: 1_000, seconds: 0.05, amplitude: 0.5), to: dir, name: "tap.wav")
        XCTAssertTrue(e.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        let voice = try e.play(e.clip(named: "tap"))
        XCTAssertEqual(voice.role, .ringtone)
        let ended = expectation(description: "the end event")
        e.whenEnded(voice) { ended.fulfill() }
        wait(for: [ended], timeout: 5)
    }
}
