import Foundation
import SysoundCore
import XCTest
@testable import SysoundAudio

/// PCM is held as the file holds it: 16-bit stays 16-bit, mono stays mono,
/// one copy (OpenAL's buffer), counted as such; a mono clip still plays at its
/// own level on both speakers; a new device gets its clips from the files.
final class ClipMemoryTests: XCTestCase {
    /// A 16-bit WAV of `samples` (quantised by libsndfile).
    private func write16(_ samples: [Float], channels: Int = 1, to dir: String, name: String) throws -> String {
        let path = dir + "/" + name
        try SoundFileWriter.write(samples, channels: channels, sampleRate: 48_000, to: path, sample: .int16)
        return path
    }

    /// The bytes OpenAL holds for a clip's buffer (AL_SIZE).
    private func alBytes(_ engine: AudioEngine, _ clip: Clip) -> Int {
        engine.locked {
            engine.output?.makeCurrent()
            return AL.bufferSize(clip.buffer)
        }
    }

    func testA16BitMonoClipIsHeldAs16BitMono() throws {
        let dir = try Fixture.directory(self)
        let mono = try write16(Fixture.tone(frequency: 440, seconds: 0.5), to: dir, name: "mono.wav")
        let stereo = try write16(Fixture.tone(frequency: 440, seconds: 0.5, channels: 2), channels: 2, to: dir, name: "stereo.wav")
        let float = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.5), to: dir, name: "float.wav")
        let engine = try loopbackEngine()
        let report = engine.preload([ClipSource(name: "mono", path: mono), ClipSource(name: "stereo", path: stereo), ClipSource(name: "float", path: float)])
        XCTAssertTrue(report.failures.isEmpty, "\(report.failures)")
        let frames = 24_000
        let m = try engine.clip(named: "mono"), s = try engine.clip(named: "stereo"), f = try engine.clip(named: "float")
        XCTAssertEqual(m.format, ClipFormat(path: mono, sample: .int16, channels: 1, sampleRate: 48_000, frames: frames))
        XCTAssertEqual(s.format.sample, .int16)
        XCTAssertEqual(s.format.channels, 2)
        XCTAssertEqual(f.format.sample, .float32, "a float file stays float")
        XCTAssertEqual(f.format.channels, 1)
        // The file's PCM bytes, once: what OpenAL holds and what the budget counts.
        XCTAssertEqual(alBytes(engine, m), frames * 2)
        XCTAssertEqual(alBytes(engine, s), frames * 4)
        XCTAssertEqual(alBytes(engine, f), frames * 4)
        XCTAssertEqual(engine.memoryUse.preloaded, frames * 2 + frames * 4 + frames * 4)
        _ = try engine.clip(forFile: mono)
        XCTAssertEqual(engine.memoryUse.cached, frames * 2, "the ad-hoc cache counts the buffer's bytes too")
    }

    /// OpenAL Soft never plays a mono buffer on direct channels; its panner
    /// puts it at −4.5 dB on each speaker, which the source's gain makes up:
    /// the mix is the file's samples × the gain on both sides, as exactly as
    /// float arithmetic allows.
    func testAMonoClipPlaysAtItsOwnLevelOnBothSpeakers() throws {
        let dir = try Fixture.directory(self)
        let tone = Fixture.tone(frequency: 700, seconds: 0.1, amplitude: 0.9)
        let path = try write16(tone, to: dir, name: "tap.wav")
        let exact = try SoundDecoder().decode(path: path).samples  // the 16-bit values as floats
        let engine = try loopbackEngine()
        engine.preload([ClipSource(name: "tap", path: path)])
        for gain in [1.0, 0.8, 0.25] {
            _ = try engine.play(engine.clip(named: "tap"), gain: gain)
            let mix = try engine.render(frames: 6_000)
            let left = Fixture.channel(mix, 0), right = Fixture.channel(mix, 1)
            let want = exact.map { $0 * Float(gain) }
            let errorLeft = zip(left, want).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
            let errorRight = zip(right, want).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
            XCTAssertLessThan(errorLeft, 2e-6, "gain \(gain): left is the clip at full level")
            XCTAssertLessThan(errorRight, 2e-6, "gain \(gain): right is the clip at full level")
        }
        // A volume change re-applies the make-up too.
        let v = try engine.play(engine.clip(named: "tap"), category: .playback, loop: true)
        engine.setVolume(0.5)
        let later = Fixture.channel(try engine.render(frames: 9_600), 0)
        XCTAssertEqual(Fixture.peak(Array(later[4_800...])), Fixture.peak(exact) * 0.5, accuracy: 1e-5)
        engine.stop(v)
    }

    /// A new device (as after a loss) gets every clip from its file, off the
    /// lock: no PCM was kept. A file gone meanwhile leaves its clip unloaded
    /// and its ad-hoc cache entry dropped, and says so.
    func testAReopenedDeviceGetsItsClipsFromTheFiles() throws {
        let dir = try Fixture.directory(self)
        let tone = Fixture.tone(frequency: 500, seconds: 0.1, amplitude: 0.6)
        let kept = try write16(tone, to: dir, name: "kept.wav")
        let gone = try write16(tone, to: dir, name: "gone.wav")
        let adHoc = try write16(tone, to: dir, name: "adhoc.wav")
        let engine = try loopbackEngine()
        engine.preload([ClipSource(name: "kept", path: kept), ClipSource(name: "gone", path: gone)])
        _ = try engine.clip(forFile: adHoc)
        try FileManager.default.removeItem(atPath: gone)
        try FileManager.default.removeItem(atPath: adHoc)

        let old = engine.locked { engine.detach() }
        old?.close()
        let out = try LoopbackOutput.open(engine.settings)
        let buffers = engine.uploadClips(into: out)
        XCTAssertEqual(buffers.filter { $0.1 != 0 }.map { $0.0.name }, ["kept"])
        engine.locked { engine.attach(out, buffers: buffers) }

        _ = try engine.play(engine.clip(named: "kept"))
        let left = Fixture.channel(try engine.render(frames: 4_800), 0)
        let exact = try SoundDecoder().decode(path: kept).samples
        XCTAssertLessThan(zip(left, exact).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }, 2e-6, "the same sound as before")
        XCTAssertThrowsError(try engine.play(engine.clip(named: "gone"))) { error in
            XCTAssertEqual(error as? AudioError, .clipNotLoaded("gone"))
        }
        XCTAssertEqual(engine.memoryUse.cached, 0, "the ad-hoc file whose file went is no longer cached")
        XCTAssertEqual(engine.memoryUse.preloaded, 2 * 4_800 * 2, "the theme's budget still counts both clips")
    }

    /// A file whose layout changed since it was loaded is not taken into the
    /// old clip's buffer (its byte count would be wrong): it waits for a reload.
    func testAFileChangedSinceItWasLoadedIsNotTakenOnReopen() throws {
        let dir = try Fixture.directory(self)
        let path = try write16(Fixture.tone(frequency: 500, seconds: 0.1), to: dir, name: "a.wav")
        let engine = try loopbackEngine()
        engine.preload([ClipSource(name: "a", path: path)])
        _ = try write16(Fixture.tone(frequency: 500, seconds: 0.2), to: dir, name: "a.wav")
        let old = engine.locked { engine.detach() }
        old?.close()
        let out = try LoopbackOutput.open(engine.settings)
        let buffers = engine.uploadClips(into: out)
        XCTAssertEqual(buffers.map(\.1), [0])
        engine.locked { engine.attach(out, buffers: buffers) }
        XCTAssertEqual(engine.preload([ClipSource(name: "a", path: path)]).loaded, ["a"], "a reload loads it anew")
        XCTAssertEqual(try engine.clip(named: "a").format.frames, 9_600)
    }
}
