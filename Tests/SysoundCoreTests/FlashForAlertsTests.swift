import SysoundCore
import XCTest

/// The `flash` control file: its spellings, and which sounds flash when.
final class FlashForAlertsTests: XCTestCase {
    func testTheControlFileTakesOnOffAndSilent() throws {
        var state = SystemState.defaults
        XCTAssertEqual(state.flash, .off)
        for (text, value) in [("on", FlashForAlerts.on), ("1", .on), ("SILENT\n", .silent), ("off", .off), ("no", .off)] {
            try ControlFile.flash.apply(text, to: &state)
            XCTAssertEqual(state.flash, value, text)
            XCTAssertEqual(ControlFile.flash.content(of: state), value.rawValue)
        }
        XCTAssertThrowsError(try ControlFile.flash.apply("sometimes", to: &state)) { error in
            XCTAssertEqual((error as? ControlValueError)?.expected, FlashForAlerts.spelling)
        }
        XCTAssertEqual(state.flash, .off, "the last good value stays")
    }

    func testAlertsAndPlaybackFlashAlwaysOrInSilentModeOnly() {
        let loud = SystemState(), silent = SystemState(silent: true), interrupted = SystemState(silent: true, interrupted: true)
        for category in SoundCategory.allCases {
            let due = category == .alert || category == .playback
            XCTAssertEqual(FlashForAlerts.on.flashes(category, state: loud), due, "\(category)")
            XCTAssertEqual(FlashForAlerts.silent.flashes(category, state: silent), due, "\(category)")
            XCTAssertFalse(FlashForAlerts.silent.flashes(category, state: loud), "\(category)")
            XCTAssertFalse(FlashForAlerts.off.flashes(category, state: silent), "\(category)")
            XCTAssertFalse(FlashForAlerts.on.flashes(category, state: interrupted), "\(category): a call in progress")
        }
    }
}
