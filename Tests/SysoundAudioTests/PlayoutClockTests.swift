import XCTest
@testable import SysoundAudio

/// The stream's own count of when what it wrote has been heard.
final class PlayoutClockTests: XCTestCase {
    func testAWriteOntoADrainedStreamPlaysAtOnceThenTheSinkHoldsIt() {
        var clock = PlayoutClock()
        clock.sinkMicros = 2_000
        clock.write(frames: 480, rate: 48_000, now: 1_000_000)  // 10 ms
        XCTAssertEqual(clock.untilHeard(now: 1_000_000), 12_000)
        XCTAssertEqual(clock.untilHeard(now: 1_011_000), 1_000)
        XCTAssertEqual(clock.untilHeard(now: 1_020_000), 0, "heard: nothing left")
    }

    func testAWriteWhileWritingQueuesBehindWhatIsWritten() {
        var clock = PlayoutClock()
        clock.write(frames: 384, rate: 48_000, now: 0)      // 8 ms ahead
        clock.write(frames: 96, rate: 48_000, now: 2_000)   // 2 ms after it
        XCTAssertEqual(clock.playedOutAt, 10_000)
        XCTAssertEqual(clock.untilHeard(now: 2_000), 8_000)
    }

    func testWhereTheServerDoesNotRewindADrainedStreamStartsAtTheNextCycle() {
        var clock = PlayoutClock()
        clock.drainedStartMicros = 2_667  // PipeWire, 128 frames a cycle
        clock.write(frames: 96, rate: 48_000, now: 0)
        XCTAssertEqual(clock.playedOutAt, 4_667)
        clock.write(frames: 96, rate: 48_000, now: 1_000)
        XCTAssertEqual(clock.playedOutAt, 6_667, "while writing, a block follows the last")
    }

    func testAWriteAfterTheStreamRanDryStartsFromNow() {
        var clock = PlayoutClock()
        clock.write(frames: 96, rate: 48_000, now: 0)
        clock.write(frames: 96, rate: 48_000, now: 50_000)  // an underrun, or a new sound after the tail
        XCTAssertEqual(clock.playedOutAt, 52_000)
        clock.write(frames: 0, rate: 48_000, now: 60_000)
        XCTAssertEqual(clock.playedOutAt, 52_000, "an empty write changes nothing")
    }
}
