import SysoundCore
import XCTest
@testable import SysoundAudio

/// The primitives the policy layer drives, proven on the rendered mix.
final class VoicePolicyTests: XCTestCase {
    /// An engine with one long constant-frequency clip per name.
    func engine(_ names: [String], voices: Int = 32, seconds: Double = 2) throws -> AudioEngine {
        let dir = try Fixture.directory(self)
        let engine = try loopbackEngine { $0.voices = voices }
        var freq = 300.0
        let sources = try names.map { name -> ClipSource in
            freq += 100
            let path = try Fixture.write(Fixture.tone(frequency: freq, seconds: seconds, amplitude: 0.25), to: dir, name: name + ".wav")
            return ClipSource(name: name, path: path)
        }
        XCTAssertTrue(engine.preload(sources).failures.isEmpty)
        return engine
    }

    /// RMS of the left channel over the next `ms` milliseconds.
    func level(_ engine: AudioEngine, ms: Int = 50) throws -> Float {
        Fixture.rms(Fixture.channel(try engine.render(frames: 48 * ms), 0))
    }

    func testStealingTakesLowestCategoryThenPriorityThenOldest() throws {
        let e = try engine(["a"], voices: 4)
        let clip = try e.clip(named: "a")
        let alarm = try e.play(clip, category: .playback)
        let alert = try e.play(clip, category: .alert)
        let oldTap = try e.play(clip, category: .ambient, priority: 5)
        let newTap = try e.play(clip, category: .ambient, priority: 5)
        XCTAssertEqual(e.voiceCount, 4)
        // Pool full: the oldest of the two equal ambient voices goes.
        let v5 = try e.play(clip, category: .ambient, priority: 5)
        XCTAssertFalse(e.isPlaying(oldTap))
        XCTAssertTrue(e.isPlaying(newTap))
        // Both ambient voices left have priority 5: the older, newTap, goes.
        let lowTap = try e.play(clip, category: .ambient, priority: 1)
        XCTAssertFalse(e.isPlaying(newTap))
        _ = try e.play(clip, category: .ambient, priority: 3)
        XCTAssertFalse(e.isPlaying(lowTap), "priority 1 is stolen before priority 5")
        XCTAssertTrue(e.isPlaying(v5))
        // New alerts steal the ambient voices first.
        _ = try e.play(clip, category: .alert)
        _ = try e.play(clip, category: .alert)
        XCTAssertTrue(e.isPlaying(alarm))
        XCTAssertTrue(e.isPlaying(alert))
        XCTAssertFalse(e.isPlaying(v5))
        // Now alerts are the lowest: the oldest alert goes, never the alarm.
        _ = try e.play(clip, category: .alert)
        XCTAssertFalse(e.isPlaying(alert))
        XCTAssertTrue(e.isPlaying(alarm))
    }

    func testStolenVoiceStopsSounding() throws {
        let dir = try Fixture.directory(self)
        let e = try loopbackEngine { $0.voices = 1 }
        let low = try Fixture.write(Fixture.tone(frequency: 200, seconds: 1, amplitude: 0.3), to: dir, name: "low.wav")
        let high = try Fixture.write(Fixture.tone(frequency: 2000, seconds: 1, amplitude: 0.3), to: dir, name: "high.wav")
        e.preload([ClipSource(name: "low", path: low), ClipSource(name: "high", path: high)])
        _ = try e.play(e.clip(named: "low"))
        _ = try e.render(frames: 4_800)
        _ = try e.play(e.clip(named: "high"))
        let mix = Fixture.channel(try e.render(frames: 4_800), 0)
        let want = Array(Fixture.tone(frequency: 2000, seconds: 1, amplitude: 0.3)[2_400..<4_800])
        XCTAssertGreaterThan(Fixture.correlation(Array(mix[2_400..<4_800]), want), 0.99, "only the new voice sounds")
    }

    func testDuckingLowersOthersAndRestores() throws {
        let e = try engine(["music", "alarm"], seconds: 2)
        _ = try e.play(e.clip(named: "music"))
        _ = try e.render(frames: 2_400) // past the clip's fade-in
        let before = try level(e)
        let alarm = try e.play(e.clip(named: "alarm"), gain: 0, category: .playback, duck: true)
        _ = try e.render(frames: 48 * 100) // past the 50 ms ramp
        let ducked = try level(e)
        XCTAssertEqual(ducked / before, 0.2512, accuracy: 0.01, "−12 dB")
        e.stop(alarm)
        _ = try e.render(frames: 48 * 100)
        XCTAssertEqual(try level(e) / before, 1, accuracy: 0.01, "restored when the ducking voice ends")
    }

    /// A ducking voice of another role's engine ducks this engine's voices
    /// (AudioRoles: one engine per media role) by the same amount, until it ends.
    func testADuckingVoiceOfAnotherEngineDucksThisOnesVoices() throws {
        let music = try engine(["music"], seconds: 2)
        let alarms = try engine(["alarm"], seconds: 2)
        _ = try music.play(music.clip(named: "music"))
        _ = try music.render(frames: 2_400)
        let before = try level(music)
        let alarm = try alarms.play(alarms.clip(named: "alarm"), gain: 0, category: .playback, duck: true)
        alarms.duck([music], whilePlaying: alarm)
        XCTAssertTrue(music.isDuckHeld)
        _ = try music.render(frames: 48 * 100)
        XCTAssertEqual(try level(music) / before, 0.2512, accuracy: 0.01, "−12 dB, as a voice of its own would")
        alarms.stop(alarm)
        XCTAssertFalse(music.isDuckHeld, "released when the ducking voice ends")
        _ = try music.render(frames: 48 * 100)
        XCTAssertEqual(try level(music) / before, 1, accuracy: 0.01, "restored")
    }

    func testDuckRampsRatherThanJumps() throws {
        let e = try engine(["music", "alarm"])
        _ = try e.play(e.clip(named: "music"))
        _ = try e.render(frames: 4_800)
        let before = try level(e, ms: 10)
        _ = try e.play(e.clip(named: "alarm"), gain: 0, category: .playback, duck: true)
        let mid = try level(e, ms: 25) // half way through the ramp
        XCTAssertLessThan(mid, before * 0.98)
        XCTAssertGreaterThan(mid, before * 0.3)
    }

    func testSoloAmbientHushesOtherAmbientOnly() throws {
        let e = try engine(["tap", "jingle", "alert"])
        _ = try e.play(e.clip(named: "tap"))
        let alert = try e.play(e.clip(named: "alert"), category: .alert)
        _ = try e.render(frames: 2_400)
        let both = try level(e)
        e.stop(alert)
        let tapAlone = try level(e)
        let alert2 = try e.play(e.clip(named: "alert"), category: .alert)
        let jingle = try e.play(e.clip(named: "jingle"), gain: 0, category: .soloAmbient)
        _ = try e.render(frames: 48 * 100)
        let hushed = try level(e)
        // Only the alert remains audible: the level is the alert alone.
        e.stop(alert2)
        XCTAssertLessThan(try level(e), 1e-4, "tap is hushed while the solo jingle plays")
        XCTAssertGreaterThan(hushed, both * 0.5)
        e.stop(jingle)
        _ = try e.render(frames: 48 * 100)
        XCTAssertEqual(try level(e) / tapAlone, 1, accuracy: 0.02, "tap restored after the jingle")
    }

    func testInterruptionPausesAndResumesWhereItWas() throws {
        let dir = try Fixture.directory(self)
        let e = try loopbackEngine()
        // A ramp: the sample value says where in the clip playback is.
        let ramp = (0..<48_000).map { Float($0) / 48_000 * 0.5 }
        let path = try Fixture.write(ramp, to: dir, name: "ramp.wav")
        let tapPath = try Fixture.write(Fixture.tone(frequency: 900, seconds: 1), to: dir, name: "tap.wav")
        e.preload([ClipSource(name: "ramp", path: path), ClipSource(name: "tap", path: tapPath)])
        let alarm = try e.play(e.clip(named: "ramp"), category: .playback)
        let tap = try e.play(e.clip(named: "tap"))
        _ = try e.render(frames: 9_600)
        e.beginInterruption()
        XCTAssertFalse(e.isPlaying(tap), "ambient stops")
        XCTAssertTrue(e.isPlaying(alarm), "playback is paused, not gone")
        let during = try e.render(frames: 9_600)
        XCTAssertLessThan(Fixture.peak(Array(during[512...])), 1e-6, "silence during the interruption")
        e.endInterruption(resumable: true)
        let after = Fixture.channel(try e.render(frames: 4_800), 0)
        let resumedAt = after[100] / 0.5 * 48_000
        XCTAssertEqual(Double(resumedAt), 9_700, accuracy: 300, "resumes where it paused, not from the start")
    }

    func testNonResumableEndDropsPausedVoices() throws {
        let e = try engine(["alarm"])
        let alarm = try e.play(e.clip(named: "alarm"), category: .playback)
        e.beginInterruption()
        e.endInterruption(resumable: false)
        XCTAssertFalse(e.isPlaying(alarm))
        XCTAssertLessThan(Fixture.peak(Array(try e.render(frames: 4_800)[512...])), 1e-6)
    }

    func testSilentModeStopsAmbientKeepsPlayback() throws {
        let e = try engine(["tap", "jingle", "alarm", "alert"])
        let tap = try e.play(e.clip(named: "tap"))
        let jingle = try e.play(e.clip(named: "jingle"), category: .soloAmbient)
        let alarm = try e.play(e.clip(named: "alarm"), category: .playback)
        let alert = try e.play(e.clip(named: "alert"), category: .alert)
        e.stopVoices(categories: [.ambient, .soloAmbient])
        XCTAssertFalse(e.isPlaying(tap))
        XCTAssertFalse(e.isPlaying(jingle))
        XCTAssertTrue(e.isPlaying(alarm))
        XCTAssertTrue(e.isPlaying(alert))
    }

    func testVolumeChangeAppliesToPlayingVoices() throws {
        let e = try engine(["a"])
        e.setVolume(0.5)
        // The policy's final gain includes the volume: clip 1 × request 1 × category 1 × 0.5.
        _ = try e.play(e.clip(named: "a"), gain: 0.5)
        _ = try e.render(frames: 2_400)
        let half = try level(e)
        e.setVolume(1)
        _ = try e.render(frames: 480)
        XCTAssertEqual(try level(e) / half, 2, accuracy: 0.02)
        e.setVolume(0)
        _ = try e.render(frames: 480)
        XCTAssertLessThan(try level(e), 1e-6, "volume 0 mutes playing voices too")
    }

    func testStaleVoiceIDIsIgnored() throws {
        let e = try engine(["a"], voices: 1)
        let first = try e.play(e.clip(named: "a"))
        let second = try e.play(e.clip(named: "a"))
        XCTAssertEqual(first.slot, second.slot)
        e.stop(first) // must not stop the voice now in the slot
        XCTAssertTrue(e.isPlaying(second))
    }
}
