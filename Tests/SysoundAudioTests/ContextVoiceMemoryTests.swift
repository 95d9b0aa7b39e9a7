import Glibc
import SysoundCore
import SysoundPlatform
import XCTest
@testable import SysoundAudio

/// An OpenAL Soft context's unused voices, given back as the daemon makes
/// it (`ContextVoiceMemory`): found in the real OpenAL Soft, given back, and
/// the mix of many voices at once still the sample-exact sum.
final class ContextVoiceMemoryTests: XCTestCase {
    override func tearDown() {
        AudioProcess.keepMemoryLean(false)
        super.tearDown()
    }

    func testAContextsUnusedVoicesAreGivenBackAndManyVoicesStillMixExactly() throws {
        AudioProcess.keepMemoryLean()
        let tones = (0..<12).map { Fixture.tone(frequency: 300 + 70 * Double($0), seconds: 0.1, amplitude: 0.05) }
        let engine = try engine(with: tones)
        guard case let .released(bytes, voices) = try XCTUnwrap(engine.output).al.voiceMemory else {
            return XCTFail("the context's voices were not given back: \(String(describing: engine.output?.al.voiceMemory))")
        }
        XCTAssertEqual(voices, 256, "OpenAL Soft 1.19 gives every context 256 voices")
        XCTAssertGreaterThan(bytes, 4 << 20, "most of the voice block is zero pages")
        // Twelve voices at once take their pages back as they mix.
        for i in tones.indices { _ = try engine.play(engine.clip(named: "t\(i)")) }
        let left = Fixture.channel(try engine.render(frames: 6_000), 0)
        var sum = [Float](repeating: 0, count: tones[0].count)
        for tone in tones { for i in tone.indices { sum[i] += tone[i] } }
        let maxError = zip(left, sum).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
        XCTAssertLessThan(maxError, 1e-3, "the mix is the sample-exact sum")
    }

    func testAProcessThatDoesNotAskKeepsTheVoices() throws {
        let engine = try engine(with: [Fixture.tone(frequency: 440, seconds: 0.05)])
        XCTAssertEqual(try XCTUnwrap(engine.output).al.voiceMemory, .kept)
    }

    /// The block's shape, on memory laid out by hand: a context whose words
    /// hold the block's address and the counts (0 in use, N made), the
    /// block's array of pointers, then the evenly spaced voices.
    func testTheBlockIsKnownByItsArrayOfEvenlySpacedVoices() throws {
        let size = 64 * 4096
        let base = try XCTUnwrap(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(base, size) }
        let words = base.assumingMemoryBound(to: UInt.self)
        let context = UInt(bitPattern: base), array = context + 4096
        func layOut(voices n: Int, made: Int? = nil, stride: UInt) {
            memset(base, 0, size)
            words[0] = 1  // a reference count
            words[5] = array
            words[6] = UInt(made ?? n) << 32  // 0 voices in use, N made
            let first = array + UInt((n * 8 + 15) & ~15)
            for v in 0..<n { words[512 + v] = first + UInt(v) * stride }
        }
        layOut(voices: 256, stride: 960)
        XCTAssertEqual(VoiceBlock.find(from: context), VoiceBlock(start: array, end: array + 2048 + 256 * 960, voices: 256))
        layOut(voices: 33, stride: 4000)  // an odd count: 8 bytes of padding before the first voice
        XCTAssertEqual(VoiceBlock.find(from: context)?.voices, 33)
        layOut(voices: 256, stride: 960)
        words[512 + 100] += 8
        XCTAssertNil(VoiceBlock.find(from: context), "one pointer out of step")
        layOut(voices: 256, made: 255, stride: 960)
        XCTAssertNil(VoiceBlock.find(from: context), "a count that is not the array's")
        layOut(voices: 8, stride: 960)
        XCTAssertNil(VoiceBlock.find(from: context), "too few to be a context's voices")
        layOut(voices: 256, stride: 960)
        words[6] |= 1
        XCTAssertNil(VoiceBlock.find(from: context), "voices already in use: not a new context")
        memset(base, 0, size)
        XCTAssertNil(VoiceBlock.find(from: context), "zeros")
        XCTAssertNil(VoiceBlock.find(from: 4096), "an address that is not mapped is read without a fault")
    }

    private func engine(with tones: [[Float]]) throws -> AudioEngine {
        let dir = try Fixture.directory(self)
        let engine = try loopbackEngine()
        let sources = try tones.enumerated().map { i, tone in
            ClipSource(name: "t\(i)", path: try Fixture.write(tone, to: dir, name: "t\(i).wav"))
        }
        let report = engine.preload(sources)
        XCTAssertTrue(report.failures.isEmpty, "\(report.failures)")
        return engine
    }
}
