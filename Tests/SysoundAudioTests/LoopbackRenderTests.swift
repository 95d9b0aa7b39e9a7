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
