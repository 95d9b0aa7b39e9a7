import SysoundCore
import XCTest

/// The latest change wins: a source writes only when its own reading changes.
final class LockArbiterTests: XCTestCase {
    func testFirstReadingIsAChangeAndRepeatsAreNot() {
        var arbiter = LockArbiter()
        XCTAssertEqual(arbiter.reading(false, from: "logind"), false)
        XCTAssertNil(arbiter.reading(false, from: "logind"))
        XCTAssertEqual(arbiter.reading(true, from: "logind"), true)
        XCTAssertNil(arbiter.reading(true, from: "logind"))
        XCTAssertEqual(arbiter.reading(false, from: "logind"), false)
    }

    /// A person's `lock on` happens outside the arbiter; logind restating
    /// "unlocked" (a reconnect, a session switch to another unlocked session)
    /// must not undo it.
    func testARestatedReadingLeavesAHandSetValueAlone() {
        var arbiter = LockArbiter()
        XCTAssertEqual(arbiter.reading(false, from: "logind"), false)
        // ... person: sysound lock on ...
        XCTAssertNil(arbiter.reading(false, from: "logind"), "logind said nothing new")
        XCTAssertEqual(arbiter.reading(true, from: "logind"), true, "logind's own change wins again")
    }

    func testSourcesAreIndependent() {
        var arbiter = LockArbiter()
        XCTAssertEqual(arbiter.reading(false, from: "logind"), false)
        XCTAssertEqual(arbiter.reading(true, from: "org.gnome.ScreenSaver"), true)
        XCTAssertNil(arbiter.reading(false, from: "logind"))
        XCTAssertEqual(arbiter.lastReading(of: "org.gnome.ScreenSaver"), true)
        XCTAssertNil(arbiter.lastReading(of: "org.freedesktop.ScreenSaver"))
    }
}
