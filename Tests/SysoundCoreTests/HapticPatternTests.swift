import XCTest
@testable import SysoundCore

final class HapticPatternTests: XCTestCase {
    func testTextFormRoundTrips() throws {
        let p = try HapticPattern(parsing: "1.0:20,0:40,0.6:30")
        XCTAssertEqual(p.steps, [HapticStep(magnitude: 1, durationMs: 20), HapticStep(magnitude: 0, durationMs: 40), HapticStep(magnitude: 0.6, durationMs: 30)])
        XCTAssertEqual(p.durationMs, 90)
        XCTAssertEqual(try HapticPattern(parsing: p.description), p)
    }

    func testBadPatternsSayWhichStepAndWhy() {
        let cases: [(String, HapticPatternError)] = [
            ("", .empty),
            ("1.0", .malformedStep(index: 1, text: "1.0")),
            ("1:20,,0:10", .malformedStep(index: 2, text: "")),
            ("1.5:20", .badMagnitude(index: 1, text: "1.5:20")),
            ("nan:20", .badMagnitude(index: 1, text: "nan:20")),
            ("1:0", .badDuration(index: 1, text: "1:0")),
            ("1:-5", .badDuration(index: 1, text: "1:-5")),
            ("1:99999999999999999999", .badDuration(index: 1, text: "1:99999999999999999999")),
            ("1:10000,1:10000,1:10000,1:10", .tooLong(30_010)),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try HapticPattern(parsing: text), text) { XCTAssertEqual($0 as? HapticPatternError, expected, text) }
        }
        XCTAssertThrowsError(try HapticPattern(parsing: Array(repeating: "1:1", count: 129).joined(separator: ",")))
    }

    func testScaling() throws {
        let p = try HapticPattern(parsing: "1:10,0.5:10").scaled(by: 0.5)
        XCTAssertEqual(p.steps.map(\.magnitude), [0.5, 0.25])
    }
}
