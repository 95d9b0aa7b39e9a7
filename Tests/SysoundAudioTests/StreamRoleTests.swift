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
