import SysoundCore
import XCTest

final class TrimmingTests: XCTestCase {
    func testWhitespaceAtEitherEndGoesAndInnerStays() {
        XCTAssertEqual("  pulse\t".trimmingWhitespace(), "pulse")
        XCTAssertEqual(" a b ".trimmingWhitespace(), "a b")
        XCTAssertEqual("\u{00A0}x\u{2003}".trimmingWhitespace(), "x", "Unicode spaces too, as `.whitespaces`")
        XCTAssertEqual(" \t ".trimmingWhitespace(), "")
        XCTAssertEqual("".trimmingWhitespace(), "")
        XCTAssertEqual("k = v".split(separator: "=").map { $0.trimmingWhitespace() }, ["k", "v"])
    }
}
