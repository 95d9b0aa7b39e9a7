import Dispatch
import Foundation
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
