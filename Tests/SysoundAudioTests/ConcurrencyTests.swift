import Dispatch
import Foundation
import COpenAL
import XCTest
@testable import SysoundAudio

/// The engine serializes OpenAL access: callers on many threads, a renderer
/// and the policy primitives at once, without a crash or a lost voice.
final class ConcurrencyTests: XCTestCase {
    func testConcurrentPlayStopAndRender() throws {
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.02), to: dir, name: "tap.wav")
        let e = try loopbackEngine { $0.voices = 8 }
        e.preload([ClipSource(name: "tap", path: path)])
        let clip = try e.clip(named: "tap")
        let rendering = DispatchSemaphore(value: 0)
        let stopRendering = ManagedAtomicFlag()
        Thread {
            while !stopRendering.isSet { _ = try? e.render(frames: 480) }
            rendering.signal()
        }.start()
        let failures = ManagedCounter()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in 0..<500 {
                do {
                    let v = try e.play(clip, gain: 0.1, category: i % 3 == 0 ? .alert : .ambient)
                    if i % 7 == worker { e.stop(v) }
                    if i % 50 == 0 { e.setVolume(Double(i % 10) / 10) }
                    if i % 97 == 0 { e.stopVoices(categories: [.ambient]) }
                } catch {
                    failures.increment()
                }
            }
        }
        stopRendering.set()
        rendering.wait()
        XCTAssertEqual(failures.value, 0)
        // Everything ends once rendered past the clip length.
        _ = try e.render(frames: 4_800)
        XCTAssertFalse(e.hasActiveVoices)
    }

    func testWaitReturnsWhenAnotherThreadRendersTheEnd() throws {
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.1), to: dir, name: "tap.wav")
        let e = try loopbackEngine()
        e.preload([ClipSource(name: "tap", path: path)])
        let v = try e.play(e.clip(named: "tap"))
        XCTAssertFalse(e.wait(for: v, timeout: 0.05), "nothing renders: the voice does not end")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { _ = try? e.render(frames: 9_600) }
        XCTAssertTrue(e.wait(for: v, timeout: 5))
    }

    /// Each engine has its own lock: while one engine's lock is held (a
    /// long swap, a stalled caller), another engine plays and renders. With
    /// one process-wide audio lock the second engine's render waited for
    /// the first to let go.
    func testAnEngineIsNotHeldUpByAnotherEnginesLock() throws {
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.1), to: dir, name: "tap.wav")
        let held = try loopbackEngine(), free = try loopbackEngine()
        free.preload([ClipSource(name: "tap", path: path)])
        let clip = try free.clip(named: "tap")
        let letGo = held.holdLockOnAThread()
        let rendered = DispatchSemaphore(value: 0)
        let peak = ManagedCounter()
        Thread {
            if let v = try? free.play(clip), let mix = try? free.render(frames: 2_400) {
                if mix.contains(where: { abs($0) > 0.1 }) { peak.increment() }
                free.stop(v)
            }
            rendered.signal()
        }.start()
        // A bound for a deadlock, not a measure of speed: the render takes milliseconds.
        let done = rendered.wait(timeout: .now() + 10) == .success
        letGo()
        if !done { rendered.wait() }
        XCTAssertTrue(done, "the other engine played and rendered while this engine's lock was held")
        XCTAssertEqual(peak.value, 1, "and its render holds its sound")
    }

    /// Two engines mixing at once on two threads each hear only their own
    /// sound: every thread makes its engine's context current for itself.
    func testTwoEnginesRenderAtOnceEachInItsOwnContext() throws {
        let dir = try Fixture.directory(self)
        let low = try Fixture.write(Fixture.tone(frequency: 300, seconds: 0.5), to: dir, name: "low.wav")
        let high = try Fixture.write(Fixture.tone(frequency: 1_200, seconds: 0.5), to: dir, name: "high.wav")
        let a = try loopbackEngine(), b = try loopbackEngine()
        a.preload([ClipSource(name: "tone", path: low)])
        b.preload([ClipSource(name: "tone", path: high)])
        let wrong = ManagedCounter()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            let (engine, frequency) = i == 0 ? (a, 300.0) : (b, 1_200.0)
            for _ in 0..<40 {
                guard let v = try? engine.play(engine.clip(named: "tone"), category: .playback, loop: true),
                      let mix = try? engine.render(frames: 2_400)
                else { wrong.increment(); continue }
                engine.stop(v)
                let left = Fixture.channel(mix, 0)
                let probe = Fixture.tone(frequency: frequency, seconds: Double(left.count) / 48_000, amplitude: 1)
                let best = (0..<160).map { abs(Fixture.correlation(Array(left.dropFirst($0)), probe)) }.max() ?? 0
                if best < 0.8 { wrong.increment() }
            }
        }
        XCTAssertEqual(wrong.value, 0, "every render held its own engine's tone")
    }

    /// An engine leaves no OpenAL context current behind it: not the
    /// process's (an app's own stays its own), not the calling thread's (a
    /// context current on an idle thread would keep a closed engine's alive).
    func testNoContextIsLeftCurrentAfterAnEngineCall() throws {
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.05), to: dir, name: "tap.wav")
        let e = try loopbackEngine()
        e.preload([ClipSource(name: "tap", path: path)])
        let v = try e.play(e.clip(named: "tap"))
        _ = try e.render(frames: 480)
        e.setVolume(0.5)
        e.stop(v)
        XCTAssertNil(ALThreadContext.current, "none left current on this thread")
        XCTAssertNil(alcGetCurrentContext(), "nor for the process (alcMakeContextCurrent)")
    }
}

/// Small lock-based helpers so the test needs no extra package.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var isSet: Bool { lock.withLock { flag } }
    func set() { lock.withLock { flag = true } }
}

final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
