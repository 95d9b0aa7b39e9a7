import SysoundCore
import XCTest
@testable import SysoundDesktop

/// How the sources' readings combine into the policy's `DesktopState`, the
/// app-id munging of feedbackd's per-app paths, and the status lines.
final class DesktopReadingsTests: XCTestCase {
    func testNothingReadIsTheDefaults() {
        XCTAssertEqual(DesktopReadings().desktop, .defaults)
    }

    func testDoNotDisturbIsGnomesOrPlasmas() {
        var r = DesktopReadings()
        for (banners, inhibited, dnd) in [(nil, nil, false), (true, nil, false), (false, nil, true), (nil, true, true),
                                          (true, false, false), (true, true, true), (false, false, true)] as [(Bool?, Bool?, Bool)] {
            r.showBanners = banners
            r.plasmaInhibited = inhibited
            XCTAssertEqual(r.desktop.doNotDisturb, dnd, "show-banners \(String(describing: banners)), Inhibited \(String(describing: inhibited))")
        }
    }

    func testSwitchesAndFeedbackdValuesPassThrough() {
        var r = DesktopReadings()
        r.eventSounds = false
        r.inputFeedbackSounds = false
        r.allowImportant = ["a", "b"]
        r.maxHapticStrength = 0.3
        r.appProfiles = ["x": .quiet, "y": .full]
        let d = r.desktop
        XCTAssertFalse(d.eventSounds)
        XCTAssertFalse(d.inputFeedbackSounds)
        XCTAssertEqual(d.allowImportant, ["a", "b"])
        XCTAssertEqual(d.maxHapticStrength, 0.3)
        XCTAssertEqual(d.appProfiles, ["x": .quiet], "full is no limit")
    }

    func testAppIDsAreMungedAsFeedbackdDoes() {
        XCTAssertEqual(DesktopReadings.munged("sm.puri.Phosh"), "sm-puri-phosh")
        XCTAssertEqual(DesktopReadings.munged("org.gnome.Clocks"), "org-gnome-clocks")
        XCTAssertEqual(DesktopReadings.munged("a--b_c"), "a--b-c")
        XCTAssertEqual(DesktopReadings.munged("Ünï/x y"), "-n--x-y")
    }

    /// The reply grammar allows [a-z0-9-] keys of at most 32 bytes: a status
    /// line that breaks it makes the whole status unreadable for the CLI.
    func testEveryStatusLineIsAWireField() {
        var r = DesktopReadings()
        r.appProfiles = ["org.example.A": .silent]
        r.allowImportant = []
        r.maxHapticStrength = 1
        for (gnome, feedbackd) in [(true, true), (false, false)] {
            for key in r.statusFields(gnome: gnome, feedbackd: feedbackd, plasma: "false").keys {
                XCTAssertTrue(WireProtocol.isKey(Substring(key)), key)
            }
        }
    }
}
