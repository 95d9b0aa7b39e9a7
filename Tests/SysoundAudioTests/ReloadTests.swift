import SysoundCore
import Foundation
import COpenAL
import XCTest
@testable import SysoundAudio

/// A reload (`preload(_:replacingTheme: true)`) changes nothing that is
/// playing: a voice plays on with the data it started with, whatever the new
/// theme does to its sound, and an unchanged sound is not loaded again.
final class ReloadTests: XCTestCase {
    private func theme(_ dir: String, _ files: [String: [Float]]) throws -> [ClipSource] {
        try files.keys.sorted().map { ClipSource(name: $0, path: try Fixture.write(files[$0]!, to: dir, name: $0 + ".wav")) }
    }

    /// The dominant frequency's sign: correlates the left channel with a 300 Hz and a 700 Hz probe.
    private func isTone(_ left: [Float], frequency: Double) -> Bool {
        let probe = Fixture.tone(frequency: frequency, seconds: Double(left.count) / 48_000, amplitude: 1)
        let best = (0..<160).map { lag in abs(Fixture.correlation(Array(left.dropFirst(lag)), probe)) }.max() ?? 0
        return best > 0.8
    }

    func testAVoiceOfAReplacedSoundPlaysOnWithItsOldData() throws {
        let dir = try Fixture.directory(self)
        let engine = try loopbackEngine()
        let first = try theme(dir, ["ring": Fixture.tone(frequency: 300, seconds: 0.2)])
        XCTAssertEqual(engine.preload(first, replacingTheme: true).failures.count, 0)
        let v = try engine.play(engine.clip(named: "ring"), category: .playback, loop: true)
        _ = try engine.render(frames: 4_800)

        // The file changes (another tone): a new play gets it, the looping voice does not.
        let changed = try theme(dir, ["ring": Fixture.tone(frequency: 700, seconds: 0.2)])
        let report = engine.preload(changed, replacingTheme: true)
        XCTAssertEqual(report.loaded, ["ring"])
        XCTAssertTrue(engine.isPlaying(v), "the reload did not stop the voice")
        let after = Fixture.channel(try engine.render(frames: 19_200), 0)
        XCTAssertGreaterThan(Fixture.rms(after), 0.1, "still sounding after the reload")
        XCTAssertTrue(isTone(Array(after[4_800..<14_400]), frequency: 300), "with the data it started with")
        engine.stop(v)
        _ = try engine.render(frames: 4_800)
        let w = try engine.play(engine.clip(named: "ring"), category: .playback)
        let next = Fixture.channel(try engine.render(frames: 4_800), 0)
        XCTAssertTrue(isTone(Array(next[480..<3_360]), frequency: 700), "the next play has the new sound")
        engine.stop(w)
    }

    /// The daemon serves while its theme loads: a play that loaded a sound
    /// itself may find it replaced by the theme's copy before its voice
    /// starts. It plays the sound of that name as it is now.
    func testAPlayOfASoundReplacedSinceItWasLookedUpPlaysTheReplacement() throws {
        let dir = try Fixture.directory(self)
        let engine = try loopbackEngine()
        engine.preload(try theme(dir, ["ring": Fixture.tone(frequency: 300, seconds: 0.2)]))
        let lookedUp = try engine.clip(named: "ring")
        engine.preload(try theme(dir, ["ring": Fixture.tone(frequency: 700, seconds: 0.2)]), replacingTheme: true)
        XCTAssertEqual(lookedUp.buffer, 0, "the old clip was released (nothing played it)")
        let v = try engine.play(lookedUp, category: .playback)
        let left = Fixture.channel(try engine.render(frames: 4_800), 0)
        XCTAssertTrue(isTone(Array(left[480..<3_360]), frequency: 700), "the replacement plays")
        engine.stop(v)
        // Dropped from the theme and not replaced: still refused, by name.
        let ring = try engine.clip(named: "ring")
        engine.preload([], replacingTheme: true)
        XCTAssertThrowsError(try engine.play(ring)) { XCTAssertEqual($0 as? AudioError, .clipNotLoaded("ring")) }
    }

    func testAVoiceOfARemovedSoundFinishesAndItsMemoryGoesAfter() throws {
        let dir = try Fixture.directory(self)
        let engine = try loopbackEngine()
        let sounds = try theme(dir, ["ring": Fixture.tone(frequency: 300, seconds: 0.1), "tap": Fixture.tone(frequency: 700, seconds: 0.05)])
        engine.preload(sounds, replacingTheme: true)
        let v = try engine.play(engine.clip(named: "ring"), category: .playback, loop: true)
        _ = try engine.render(frames: 2_400)

        engine.preload(sounds.filter { $0.name == "tap" }, replacingTheme: true)
        XCTAssertEqual(engine.clipNames, ["tap"], "the removed sound cannot be played again")
        XCTAssertTrue(engine.isPlaying(v))
        XCTAssertGreaterThan(Fixture.rms(Fixture.channel(try engine.render(frames: 9_600), 0)), 0.1, "the removed sound still sounds")
        XCTAssertEqual(engine.locked { engine.core.store.retired.count }, 1, "kept while its voice plays")
        engine.stop(v)
        XCTAssertEqual(engine.locked { engine.core.store.retired.count }, 0, "released when its voice ended")
        XCTAssertEqual(engine.memoryUse.preloaded, try engine.clip(named: "tap").format.byteCount)
    }

    /// Whether `buffer` is still an AL buffer of the engine's output.
    private func isBuffer(_ engine: AudioEngine, _ buffer: ALuint) -> Bool {
        engine.locked {
            engine.output?.makeCurrent()
            return alIsBuffer(buffer) != 0
        }
    }

    /// A replaced sound's buffer is deleted once the reload is done (off the
    /// engine's lock, after the swap), a playing sound's once its voice has
    /// ended and the engine rendered on; nothing is left for the close.
    func testAReplacedSoundsBufferIsDeletedWhenNothingPlaysIt() throws {
        let dir = try Fixture.directory(self)
        let engine = try loopbackEngine()
        let first = try theme(dir, ["ring": Fixture.tone(frequency: 300, seconds: 0.2), "tap": Fixture.tone(frequency: 300, seconds: 0.05)])
        engine.preload(first, replacingTheme: true)
        let oldRing = try engine.clip(named: "ring").buffer, oldTap = try engine.clip(named: "tap").buffer
        let v = try engine.play(engine.clip(named: "ring"), category: .playback, loop: true)
        _ = try engine.render(frames: 2_400)

        let changed = try theme(dir, ["ring": Fixture.tone(frequency: 700, seconds: 0.2), "tap": Fixture.tone(frequency: 700, seconds: 0.05)])
        XCTAssertEqual(engine.preload(changed, replacingTheme: true).loaded.sorted(), ["ring", "tap"])
        XCTAssertFalse(isBuffer(engine, oldTap), "the replaced tap's buffer is deleted when the reload returns")
        XCTAssertTrue(isBuffer(engine, oldRing), "the playing ring's is kept")
        engine.stop(v)
        _ = try engine.render(frames: 480)
        XCTAssertFalse(isBuffer(engine, oldRing), "and deleted once its voice ended")
        XCTAssertEqual(engine.locked { engine.core.releasedBuffers }, [], "nothing waits to be deleted")
    }

    func testAnUnchangedSoundIsNotLoadedAgain() throws {
        let dir = try Fixture.directory(self)
        let engine = try loopbackEngine()
        let sounds = try theme(dir, ["tap": Fixture.tone(frequency: 700, seconds: 0.05)])
        engine.preload(sounds, replacingTheme: true)
        let before = try engine.clip(named: "tap")
        XCTAssertEqual(engine.preload(sounds, replacingTheme: true).loaded, ["tap"])
        XCTAssertTrue(try engine.clip(named: "tap") === before, "same file, same gain: the same clip and buffer")
        var louder = sounds
        louder[0].gain = 0.5
        engine.preload(louder, replacingTheme: true)
        XCTAssertFalse(try engine.clip(named: "tap") === before, "a new gain is a new clip")
    }
}
