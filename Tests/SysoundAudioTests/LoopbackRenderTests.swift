import SysoundCore
import XCTest
@testable import SysoundAudio

/// The mix, rendered offline through ALC_SOFT_loopback, is exactly what the
/// engine was asked to play.
final class LoopbackRenderTests: XCTestCase {
    func testPlayRendersClipTimesGain() throws {
        let dir = try Fixture.directory(self)
        let tone = Fixture.tone(frequency: 1000, seconds: 0.1)
        let path = try Fixture.write(tone, to: dir, name: "tap.wav")
        let engine = try loopbackEngine()
        let report = engine.preload([ClipSource(name: "tap", path: path, gain: 1)])
        XCTAssertEqual(report.loaded, ["tap"])
        XCTAssertTrue(report.failures.isEmpty, "\(report.failures)")
        _ = try engine.play(engine.clip(named: "tap"), gain: 0.8)
        let mix = try engine.render(frames: 9_600)
        let left = Fixture.channel(mix, 0), right = Fixture.channel(mix, 1)
        let start = try XCTUnwrap(Fixture.onset(left)) - XCTUnwrap(Fixture.onset(tone))
        XCTAssertEqual(start, 0, "a voice started before the first render begins at its first frame")
        let expected = tone.map { $0 * 0.8 }
        let got = Array(left[start..<min(left.count, start + expected.count)])
        XCTAssertGreaterThanOrEqual(Fixture.correlation(got, expected), 0.99)
        XCTAssertEqual(Fixture.peak(left), Fixture.peak(expected), accuracy: Fixture.peak(expected) * 0.01)
        XCTAssertEqual(Fixture.peak(right), Fixture.peak(expected), accuracy: Fixture.peak(expected) * 0.01)
    }
}

extension LoopbackRenderTests {
    /// Preloads synthesized clips and returns the engine.
    func engine(
        with clips: [String: [Float]], channels: [String: Int] = [:], rate: [String: Int] = [:],
        _ configure: (inout AudioSettings) -> Void = { _ in }
    ) throws -> AudioEngine {
        let dir = try Fixture.directory(self)
        let engine = try loopbackEngine(configure)
        var sources: [ClipSource] = []
        for (name, samples) in clips {
            let path = try Fixture.write(samples, channels: channels[name] ?? 1, rate: rate[name] ?? 48_000, to: dir, name: name + ".wav")
            sources.append(ClipSource(name: name, path: path))
        }
        let report = engine.preload(sources)
        XCTAssertTrue(report.failures.isEmpty, "\(report.failures)")
        return engine
    }

    func testTwoSoundsRenderTheirSum() throws {
        let a = Fixture.tone(frequency: 440, seconds: 0.2, amplitude: 0.3)
        let b = Fixture.tone(frequency: 660, seconds: 0.1, amplitude: 0.3)
        let engine = try engine(with: ["a": a, "b": b])
        _ = try engine.play(engine.clip(named: "a"))
        _ = try engine.play(engine.clip(named: "b"))
        let left = Fixture.channel(try engine.render(frames: 12_000), 0)
        var sum = a
        for i in b.indices { sum[i] += b[i] }
        let got = Array(left[0..<sum.count])
        XCTAssertGreaterThanOrEqual(Fixture.correlation(got, sum), 0.99)
        let maxError = zip(got, sum).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
        XCTAssertLessThan(maxError, 1e-3, "the mix is the sample-exact sum")
    }

    func testHalfGainHalvesThePeak() throws {
        let a = Fixture.tone(frequency: 500, seconds: 0.1, amplitude: 0.8)
        let engine = try engine(with: ["a": a])
        _ = try engine.play(engine.clip(named: "a"), gain: 1)
        let full = Fixture.peak(Fixture.channel(try engine.render(frames: 6_000), 0))
        _ = try engine.play(engine.clip(named: "a"), gain: 0.5)
        let half = Fixture.peak(Fixture.channel(try engine.render(frames: 6_000), 0))
        XCTAssertEqual(full, 0.8, accuracy: 0.008)
        XCTAssertEqual(half, full / 2, accuracy: full * 0.01)
    }

    func testStoppedVoiceRendersSilence() throws {
        let engine = try engine(with: ["a": Fixture.tone(frequency: 500, seconds: 1)])
        let v = try engine.play(engine.clip(named: "a"))
        XCTAssertGreaterThan(Fixture.peak(try engine.render(frames: 2_400)), 0.1)
        XCTAssertTrue(engine.isPlaying(v))
        engine.stop(v)
        XCTAssertFalse(engine.isPlaying(v))
        // OpenAL Soft fades a stopped source out over at most one short step.
        let after = try engine.render(frames: 4_800)
        XCTAssertLessThan(Fixture.peak(Array(after[256...])), 1e-6)
    }

    func testVoiceEndsByItselfAndIsReported() throws {
        let engine = try engine(with: ["a": Fixture.tone(frequency: 500, seconds: 0.05)])
        let v = try engine.play(engine.clip(named: "a"))
        _ = try engine.render(frames: 4_800)
        XCTAssertFalse(engine.isPlaying(v))
        XCTAssertTrue(engine.wait(for: v, timeout: 0))
        XCTAssertFalse(engine.hasActiveVoices)
    }

    func testClipAt44kKeepsItsLength() throws {
        let tone = Fixture.tone(frequency: 441, seconds: 0.5, rate: 44_100, amplitude: 0.5)
        let engine = try engine(with: ["a": tone], rate: ["a": 44_100])
        XCTAssertEqual(try engine.clip(named: "a").format.sampleRate, 44_100)
        _ = try engine.play(engine.clip(named: "a"))
        let left = Fixture.channel(try engine.render(frames: 48_000), 0)
        let start = try XCTUnwrap(Fixture.onset(left, threshold: 1e-3))
        let end = try XCTUnwrap(Fixture.end(left, threshold: 1e-3))
        let seconds = Double(end - start) / 48_000
        XCTAssertEqual(seconds, 0.5, accuracy: 0.002, "a 0.5 s clip at 44.1 kHz lasts 0.5 s at 48 kHz")
        XCTAssertEqual(Fixture.peak(left), 0.5, accuracy: 0.01)
    }

    func testStereoClipKeepsItsChannels() throws {
        let st = Fixture.tone(frequency: 400, seconds: 0.1, channels: 2, amplitude: 0.4)
        let engine = try engine(with: ["s": st], channels: ["s": 2])
        _ = try engine.play(engine.clip(named: "s"), gain: 0.5)
        let mix = try engine.render(frames: 4_800)
        for c in 0..<2 {
            let want = Fixture.channel(st, c).map { $0 * 0.5 }
            let got = Array(Fixture.channel(mix, c)[0..<want.count])
            XCTAssertGreaterThanOrEqual(Fixture.correlation(got, want), 0.99, "channel \(c)")
            XCTAssertEqual(Fixture.peak(got), Fixture.peak(want), accuracy: Fixture.peak(want) * 0.01)
        }
    }

    func testRateTwoHalvesTheLength() throws {
        let engine = try engine(with: ["a": Fixture.tone(frequency: 300, seconds: 0.4)])
        _ = try engine.play(engine.clip(named: "a"), rate: 2)
        let left = Fixture.channel(try engine.render(frames: 24_000), 0)
        let start = try XCTUnwrap(Fixture.onset(left, threshold: 1e-3))
        let end = try XCTUnwrap(Fixture.end(left, threshold: 1e-3))
        XCTAssertEqual(Double(end - start) / 48_000, 0.2, accuracy: 0.003)
    }

    func testLoopRepeatsUntilStopped() throws {
        let engine = try engine(with: ["a": Fixture.tone(frequency: 300, seconds: 0.05)])
        let v = try engine.play(engine.clip(named: "a"), category: .playback, loop: true)
        let left = Fixture.channel(try engine.render(frames: 24_000), 0)
        XCTAssertGreaterThan(Fixture.rms(Array(left[19_200...])), 0.1, "still sounding after 8 loops")
        XCTAssertTrue(engine.isPlaying(v))
        engine.stopAll()
        XCTAssertFalse(engine.hasActiveVoices)
    }
}
