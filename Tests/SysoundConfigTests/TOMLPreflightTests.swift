@testable import SysoundConfig
import XCTest

/// What toml++ (inside TOMLKit) would abort on is refused before it sees it;
/// valid TOML and look-alikes inside strings and comments pass.
final class TOMLPreflightTests: XCTestCase {
    func testRefusesWhatTomlPlusPlusAssertsOn() {
        let refused: [(String, TOMLPreflight.Problem, Int, Int)] = [
            ("[\u{E9}]", .headerStart, 1, 2),
            ("\u{FEFF}[\u{FFFD}", .headerStart, 1, 2),  // Config fuzzer: a byte-order mark first
            ("s=[}", .braceInArray, 1, 4),
            ("s=[\"\",}", .braceInArray, 1, 7),  // Theme fuzzer
            ("s=[1,\n}", .braceInArray, 2, 1),
            ("s=[1, # c\n }", .braceInArray, 2, 2),
            ("s=[{},}", .braceInArray, 1, 7),
        ]
        for (text, problem, line, column) in refused {
            let found = TOMLPreflight.problem(in: text)
            XCTAssertEqual(found?.problem, problem, text)
            XCTAssertEqual(found?.line, line, text)
            XCTAssertEqual(found?.column, column, text)
        }
    }

    func testPassesValidTOMLAndLookAlikes() {
        for text in ["s=[1,]", "s={a=1,}", "s = [\"}\", '}']", "[audio]\nx = [1, 2]\n[[t]]\n", "\u{FEFF}[audio]",
                     "s = [ # }\n 1 ]", "t = {a = [1, 2], b = {}}", "s = \"\"\"\n[é]\n\"\"\""] {
            XCTAssertNil(TOMLPreflight.problem(in: text), text)
        }
    }
}
