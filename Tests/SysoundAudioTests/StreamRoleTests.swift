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
