import Foundation
import SysoundCore
import XCTest
@testable import SysoundAudio

/// Preloading, the ad-hoc cache, caps, and rendering to a file.
final class ClipStoreTests: XCTestCase {
    func testAdHocFileIsDecodedOnceAndCached() throws {
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.1), to: dir, name: "a.wav")
        let e = try loopbackEngine()
        let first = try e.clip(forFile: path)
        let again = try e.clip(forFile: path)
        XCTAssertTrue(first === again)
        XCTAssertEqual(e.memoryUse.cached, 4_800 * 4)
        // A replaced file is decoded again.
        try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.2), to: dir, name: "a.wav")
        let replaced = try e.clip(forFile: path)
        XCTAssertFalse(first === replaced)
        XCTAssertEqual(replaced.format.frames, 9_600)
    }

    /// Callers that miss the cache for the same file at once (each decodes
    /// and uploads it off the engine's lock) all get the one clip that was
    /// cached, and its bytes count once.
    func testTheSameFileMissedAtOnceIsCachedOnce() throws {
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 1), to: dir, name: "a.wav")
        let e = try loopbackEngine()
        let clips = Locked<[Clip]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            if let clip = try? e.clip(forFile: path) { clips.withLock { $0.append(clip) } }
        }
        let got = clips.withLock { $0 }
        XCTAssertEqual(got.count, 4)
        XCTAssertTrue(got.allSatisfy { $0 === got[0] }, "one clip for the file")
        XCTAssertEqual(e.memoryUse.cached, got[0].format.byteCount, "counted once")
        XCTAssertTrue(try e.clip(forFile: path) === got[0])
    }

    func testCacheEvictsLeastRecentlyUsed() throws {
        let dir = try Fixture.directory(self)
        let e = try loopbackEngine { $0.maxCachedFiles = 2 }
        let paths = try (0..<3).map { try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.05), to: dir, name: "f\($0).wav") }
        let a = try e.clip(forFile: paths[0])
        let b = try e.clip(forFile: paths[1])
        _ = try e.clip(forFile: paths[0]) // a is now more recent than b
        _ = try e.clip(forFile: paths[2])
        XCTAssertTrue(try e.clip(forFile: paths[0]) === a, "recently used stays")
        XCTAssertThrowsError(try e.play(b)) { error in
            XCTAssertEqual(error as? AudioError, .clipNotLoaded(paths[1]))
        }
    }

    func testCacheNeverEvictsAClipThatIsPlaying() throws {
        let dir = try Fixture.directory(self)
        let e = try loopbackEngine { $0.maxCachedFiles = 1 }
        let p0 = try Fixture.write(Fixture.tone(frequency: 440, seconds: 1), to: dir, name: "long.wav")
        let p1 = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.05), to: dir, name: "short.wav")
        let v = try e.play(e.clip(forFile: p0))
        _ = try e.clip(forFile: p1)
        XCTAssertTrue(e.isPlaying(v))
        XCTAssertGreaterThan(Fixture.peak(try e.render(frames: 4_800)), 0.4)
    }

    func testPreloadBudgetNamesTheFileThatDoesNotFit() throws {
        let dir = try Fixture.directory(self)
        let e = try loopbackEngine { $0.maxPreloadBytes = 48_000 * 4 }
        let a = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.6), to: dir, name: "a.wav")
        let b = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.6), to: dir, name: "b.wav")
        let report = e.preload([ClipSource(name: "a", path: a), ClipSource(name: "b", path: b)])
        XCTAssertEqual(report.loaded, ["a"])
        XCTAssertEqual(report.failures.count, 1)
        XCTAssertTrue(report.failures[0].description.contains(b))
        XCTAssertTrue(report.failures[0].description.contains("budget"))
    }

    func testMaxClipSecondsIsConfigurable() throws {
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 1.5), to: dir, name: "long.wav")
        XCTAssertThrowsError(try SoundDecoder(maxSeconds: 1).decode(path: path)) { error in
            XCTAssertEqual(error as? AudioError, .clipTooLong(path: path, seconds: 1.5, maximum: 1))
        }
        XCTAssertEqual(try SoundDecoder(maxSeconds: 2).decode(path: path).frames, 72_000)
    }

    func testFlacAndOggDecode() throws {
        let dir = try Fixture.directory(self)
        let tone = Fixture.tone(frequency: 440, seconds: 0.2)
        let flac = dir + "/t.flac"
        try SoundFileWriter.write(tone, channels: 1, sampleRate: 48_000, to: flac)
        let decoded = try SoundDecoder().decode(path: flac)
        XCTAssertEqual(decoded.frames, tone.count)
        XCTAssertGreaterThan(Fixture.correlation(decoded.samples, tone), 0.999)
        // Ogg Vorbis, made by sox if present (libsndfile reads it).
        let ogg = dir + "/t.ogg"
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = [flac, ogg]
        guard (try? sox.run()) != nil else { throw XCTSkip("sox is not installed") }
        sox.waitUntilExit()
        let vorbis = try SoundDecoder().decode(path: ogg)
        XCTAssertEqual(vorbis.sampleRate, 48_000)
        XCTAssertEqual(Double(vorbis.frames), Double(tone.count), accuracy: 64)
    }

    func testRenderToFileWritesTheMix() throws {
        let dir = try Fixture.directory(self)
        let tone = Fixture.tone(frequency: 700, seconds: 0.25)
        let path = try Fixture.write(tone, to: dir, name: "tap.wav")
        let e = try loopbackEngine()
        e.preload([ClipSource(name: "tap", path: path)])
        _ = try e.play(e.clip(named: "tap"), gain: 0.5)
        let out = dir + "/out.wav"
        try e.renderToFile(out)
        let written = try SoundDecoder().decode(path: out)
        XCTAssertEqual(written.channels, 2)
        XCTAssertEqual(written.sampleRate, 48_000)
        // Rendered until the voice ended: the clip's length, rounded up to one chunk.
        XCTAssertGreaterThanOrEqual(written.frames, tone.count)
        XCTAssertLessThan(written.frames, tone.count + 2 * e.renderChunkFrames)
        let left = Fixture.channel(written.samples, 0)
        XCTAssertGreaterThan(Fixture.correlation(Array(left[0..<tone.count]), tone), 0.99)
        XCTAssertEqual(Fixture.peak(left), Fixture.peak(tone) * 0.5, accuracy: Fixture.peak(tone) * 0.005)
    }
}
