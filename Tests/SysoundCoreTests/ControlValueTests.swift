import XCTest
@testable import SysoundCore

final class ControlValueTests: XCTestCase {
    func testBooleanSpellings() throws {
        for text in ["1", "on", "ON", " true\n", "Yes", "\tyes \r\n"] { XCTAssertTrue(try ControlValue.bool(text), text) }
        for text in ["0", "off", "False", "no\n", " NO "] { XCTAssertFalse(try ControlValue.bool(text), text) }
    }

    func testGarbageNamesWhatWasRead() {
        for text in ["maybe", "", "2", "onn", "1 1", "\u{0}"] {
            XCTAssertThrowsError(try ControlValue.bool(text)) { error in
                XCTAssertTrue("\(error)".contains(ControlValue.quoted(text)), "\(error)")
                XCTAssertTrue("\(error)".contains("on/off"), "\(error)")
            }
        }
    }

    func testVolume() throws {
        XCTAssertEqual(try ControlValue.volume("0.5\n"), 0.5)
        XCTAssertEqual(try ControlValue.volume("50%"), 0.5)
        XCTAssertEqual(try ControlValue.volume("1"), 1)
        for bad in ["1.5", "-0.1", "nan", "inf", "loud", "101%", "", "1e400"] {
            XCTAssertThrowsError(try ControlValue.volume(bad), bad)
        }
    }

    func testQuotedEscapesControlCharactersAndTruncates() {
        XCTAssertEqual(ControlValue.quoted("a\nb"), "\"a\\nb\"")
        XCTAssertEqual(ControlValue.quoted(String(repeating: "x", count: 100), limit: 3), "\"xxx…\"")
    }

    func testApplyKeepsTheLastGoodValue() {
        var state = SystemState(silent: true)
        XCTAssertThrowsError(try ControlFile.silent.apply("maybe", to: &state))
        XCTAssertTrue(state.silent)
        ControlFile.silent.reset(in: &state)
        XCTAssertFalse(state.silent)
    }

    func testContentRoundTrips() throws {
        let state = SystemState(silent: true, locked: false, volume: 0.3, haptics: false, vibrateOnAlert: true, interrupted: true)
        var back = SystemState.defaults
        for control in ControlFile.allCases { try control.apply(control.content(of: state), to: &back) }
        XCTAssertEqual(back, state)
    }

    func testCategoryParsing() {
        XCTAssertEqual(SoundCategory(parsing: "Solo_Ambient"), .soloAmbient)
        XCTAssertNil(SoundCategory(parsing: "loud"))
    }
}
