import SysoundLeds
import XCTest

final class LedProgramTests: XCTestCase {
    /// A square wave through zero-length steps (the software trigger ramps
    /// between entries of different brightness); 10^6 / mHz / 2 ms a half.
    func testBlinkIsASquareWave() {
        let blink = LedProgram.theme(level: 255, frequencyMilliHz: 2000)
        XCTAssertEqual(blink.pattern, "255 250 255 0 0 250 0 0\n")
        XCTAssertEqual(blink.repeatCount, -1)
        XCTAssertNil(blink.durationMs)
        XCTAssertEqual(LedProgram.theme(level: 1, frequencyMilliHz: 3000).pattern, "1 166 1 0 0 166 0 0\n")
    }

    func testSteadyAndOffRunOnceAndHold() {
        let steady = LedProgram.theme(level: 40, frequencyMilliHz: 0)
        XCTAssertEqual(steady, .steady(level: 40))
        XCTAssertEqual(steady.pattern, "40 1 40 0\n")
        XCTAssertEqual(steady.repeatCount, 1, "one run, then the kernel keeps the level: no timer")
        XCTAssertEqual(LedProgram.off.pattern, "0 1 0 0\n")
        XCTAssertEqual(LedProgram.theme(level: 0, frequencyMilliHz: 1000), .off)
    }

    func testABurstIsBounded() {
        let burst = LedProgram.theme(level: 1, frequencyMilliHz: 5000, cycles: 4)
        XCTAssertEqual(burst.pattern, "1 100 1 0 0 100 0 0\n")
        XCTAssertEqual(burst.repeatCount, 4)
        XCTAssertEqual(burst.durationMs, 800)
    }

    func testColours() {
        XCTAssertEqual(LedColor(parsing: "blue"), .blue)
        XCTAssertEqual(LedColor(parsing: "#00FFFF"), LedColor(red: 0, green: 255, blue: 255))
        XCTAssertEqual(LedColor(parsing: "#00ffff")?.description, "#00ffff")
        XCTAssertEqual(LedColor.red.description, "red")
        XCTAssertNil(LedColor(parsing: "purple"))
        XCTAssertNil(LedColor(parsing: "#12345"))
    }

    func testArbiterShowsTheHighestPriorityThenTheNext() {
        var arbiter = LedArbiter<String>()
        XCTAssertNil(arbiter.shown)
        arbiter.add(id: 1, priority: 1, "low")
        arbiter.add(id: 2, priority: 5, "high")
        arbiter.add(id: 3, priority: 1, "low, later")
        XCTAssertEqual(arbiter.shown?.request, "high")
        arbiter.remove(id: 2)
        XCTAssertEqual(arbiter.shown?.request, "low, later", "the latest of equals")
        arbiter.remove(id: 3)
        XCTAssertEqual(arbiter.shown?.request, "low")
        XCTAssertFalse(arbiter.remove(id: 3))
        arbiter.remove(id: 1)
        XCTAssertNil(arbiter.shown)
    }
}
