import SysoundCore
import XCTest
@testable import SysoundAudio

/// A voice's end is an event the engine tells (`whenEnded`), on the loopback
/// engine where the test itself renders: told once the mix has played the
/// clip out, not before; when the voice is stopped or stolen; at once for a
/// voice that has ended already; and for every voice when the engine shuts down.
final class VoiceEndTests: XCTestCase {
    func testTheEndIsToldWhenTheMixHasPlayedTheClipOut() throws {
        let dir = try Fixture.directory(self)
        let engine = try loopbackEngine { $0.voices = 2 }
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.2, amplitude: 0.3), to: dir, name: "short.wav")
        XCTAssertTrue(engine.preload([ClipSource(name: "short", path: path)]).failures.isEmpty)
        let clip = try engine.clip(named: "short")
        let ends = Locked<[String]>([])

        let short = try engine.play(clip, category: .ambient)
        engine.whenEnded(short) { ends.withLock { $0.append("short") } }
        _ = try engine.render(frames: 48 * 100)
        XCTAssertEqual(ends.withLock { $0 }, [], "half of the clip is still to play")
        _ = try engine.render(frames: 48 * 150)
        XCTAssertEqual(ends.withLock { $0 }, ["short"], "told once the clip has played out")
        engine.whenEnded(short) { ends.withLock { $0.append("again") } }
        XCTAssertEqual(ends.withLock { $0 }, ["short", "again"], "a voice that has ended is told at once")

        let stopped = try engine.play(clip, category: .ambient)
        engine.whenEnded(stopped) { ends.withLock { $0.append("stopped") } }
        engine.stop(stopped)
        XCTAssertEqual(ends.withLock { $0 }.last, "stopped")

        let first = try engine.play(clip, category: .ambient)
        let second = try engine.play(clip, category: .ambient)
        engine.whenEnded(first) { ends.withLock { $0.append("stolen") } }
        engine.whenEnded(second) { ends.withLock { $0.append("shut down") } }
        _ = try engine.play(clip, category: .ambient)  // two voices: the oldest is stolen
        XCTAssertEqual(ends.withLock { $0 }.last, "stolen")
        engine.shutdown()
        XCTAssertEqual(ends.withLock { $0 }.last, "shut down", "a voice that goes with the engine has ended too")
    }
}
