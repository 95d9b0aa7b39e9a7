import Foundation
import SysoundTestSupport
import XCTest

/// The daemon follows the desktop's screen lock by itself: python-dbusmock's
/// logind (system bus) and screensavers (session bus) on the private buses
/// of Tests/fixture/with-dbus.sh, the real daemon, the real CLI, and the
/// PulseAudio null sink to hear what the lock lets through.
final class SessionLockTests: XCTestCase {
    var daemon: DaemonProcess?
    var cli: CLI { daemon!.cli }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Pulse.require()
        try SessionMock.require()
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, "sysound serve did not exit 0 on SIGTERM") }
        SessionMock.stopAll()
        // A test that stopped a bus must not leave it stopped for the next one.
        try? SessionMock.bus("start", "system")
        super.tearDown()
    }

    /// logind with sessions `ids` of this user, the first the display session.
    private func startLogind(sessions ids: [String] = ["3"]) throws {
        try SessionMock.start(.logind)
        for id in ids { try SessionMock.perform("add-session", id) }
        if let first = ids.first { try SessionMock.perform("display", first) }
    }

    private func startDaemon(config: String? = nil) throws {
        daemon = try DaemonProcess(config: config)
    }

    private func lockStatus() -> String {
        ((try? cli.run(["lock", "status"]))?.stdout ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `locked:` line of `sysound status`, e.g. `on (logind session 3)`.
    private func statusLocked() -> String { cli.status()["locked"] ?? "" }

    private func expectLocked(_ expected: String, within seconds: Double = 5, _ message: String = "", line: UInt = #line) {
        let held = eventually(seconds) { statusLocked() == expected }
        XCTAssertTrue(held, "status says locked: \(statusLocked()), expected \(expected). \(message)\n\(daemon?.log(tail: 15) ?? "")", line: line)
    }

    private func expectLog(_ text: String, within seconds: Double = 5, line: UInt = #line) {
        XCTAssertTrue(eventually(seconds) { daemon?.log().contains(text) ?? false }, "the log never said \"\(text)\":\n\(daemon?.log(tail: 20) ?? "")", line: line)
    }

    private func peak(_ sound: String, seconds: Double = 0.6) throws -> Float {
        try Pulse.peak(seconds) { XCTAssertEqual(try cli.run(["play", sound]).status, 0) }
    }

    func testLockedHintSilencesTapsButNotAlerts() throws {
        try startLogind()
        try startDaemon()
        expectLocked("off (logind session 3)")
        try SessionMock.perform("locked", "3", "true")
        XCTAssertTrue(eventually(5) { lockStatus() == "on" }, "sysound lock status: \(lockStatus())")
        XCTAssertEqual(statusLocked(), "on (logind session 3)")
        XCTAssertLessThan(try peak("tap"), 1e-4, "a tap was heard on the lock screen")
        XCTAssertGreaterThan(try peak("notification", seconds: 1.0), 0.05, "an alert was silenced by the lock")
        try SessionMock.perform("locked", "3", "false")
        XCTAssertTrue(eventually(5) { lockStatus() == "off" }, "sysound lock status: \(lockStatus())")
        XCTAssertGreaterThan(try peak("tap"), 0.05, "taps stayed silent after the unlock")
    }

    func testTheNewDisplaySessionIsFollowed() throws {
        try startLogind()
        try startDaemon()
        expectLocked("off (logind session 3)")
        // A second login becomes the user's display session (a seat switch).
        try SessionMock.perform("add-session", "4")
        try SessionMock.perform("display", "4")
        expectLog("following the lock of login session 4")
        try SessionMock.perform("locked", "4", "true")
        expectLocked("on (logind session 4)")
        try SessionMock.perform("locked", "4", "false")
        expectLocked("off (logind session 4)")
        // The old session's lock is no longer the user's.
        try SessionMock.perform("locked", "3", "true")
        usleep(500_000)
        XCTAssertEqual(statusLocked(), "off (logind session 4)")
    }

    func testTheDaemonsOwnSessionComesBeforeTheDisplaySession() throws {
        try startLogind(sessions: ["3", "8"])
        // The daemon runs inside session 8 (its command line names its own
        // directory, known before its PID); the user's display session is 3.
        daemon = try DaemonProcess(start: false)
        try SessionMock.perform("pid-session", "cmdline:" + daemon!.root, "8")
        try daemon!.start()
        expectLog("following the lock of login session 8 (the daemon's own session")
        try SessionMock.perform("locked", "3", "true")
        try SessionMock.perform("locked", "8", "true")
        expectLocked("on (logind session 8)")
        // Another display session does not move it off its own session.
        try SessionMock.perform("add-session", "9")
        try SessionMock.perform("display", "9")
        try SessionMock.perform("locked", "8", "false")
        expectLocked("off (logind session 8)")
    }

    func testLogindLeavingAndReturning() throws {
        try startLogind()
        try startDaemon()
        expectLocked("off (logind session 3)")
        try SessionMock.stop(.logind)
        expectLog("logind left the system bus")
        XCTAssertGreaterThan(try peak("tap"), 0.05, "the daemon stopped serving without logind")
        XCTAssertEqual(try cli.run(["lock", "on"]).status, 0, "the locked file must keep working")
        XCTAssertEqual(statusLocked(), "on (control file)")
        XCTAssertEqual(try cli.run(["lock", "off"]).status, 0)
        try startLogind(sessions: ["5"])
        expectLog("following the lock of login session 5")
        try SessionMock.perform("locked", "5", "true")
        expectLocked("on (logind session 5)")
    }

    func testNoSystemBusAtStartThenItAppears() throws {
        try SessionMock.bus("stop", "system")
        try startDaemon()
        expectLog("no system bus")
        XCTAssertEqual(try cli.run(["lock", "on"]).status, 0)
        XCTAssertEqual(lockStatus(), "on")
        XCTAssertLessThan(try peak("tap"), 1e-4, "the locked file alone must still silence taps")
        XCTAssertEqual(try cli.run(["lock", "off"]).status, 0)
        try SessionMock.bus("start", "system")
        try startLogind()
        // The connection is retried with back-off of at most 5 s.
        try SessionMock.perform("locked", "3", "true")
        expectLocked("on (logind session 3)", within: 12)
    }

    func testASessionWithoutLockedHintIsOneLogLineAndTheFileStillWorks() throws {
        try SessionMock.start(.logind)
        try SessionMock.perform("add-session", "6", "--no-locked-hint")
        try SessionMock.perform("display", "6")
        try startDaemon()
        expectLog("session 6 has no LockedHint")
        XCTAssertEqual(daemon!.log().components(separatedBy: "has no LockedHint").count - 1, 1, "one line, not one per event")
        XCTAssertEqual(try cli.run(["lock", "on"]).status, 0)
        XCTAssertEqual(statusLocked(), "on (control file)")
        XCTAssertLessThan(try peak("tap"), 1e-4)
    }

    /// The documented precedence: the latest change wins.
    func testAPersonsLockHoldsUntilLogindChangesAgain() throws {
        try startLogind()
        try startDaemon()
        expectLocked("off (logind session 3)")
        XCTAssertEqual(try cli.run(["lock", "on"]).status, 0)
        XCTAssertEqual(statusLocked(), "on (control file)")
        // logind restates "unlocked" (PropertiesChanged with the same value)
        // and announces a new session: nothing changed for logind.
        try SessionMock.perform("locked", "3", "false")
        try SessionMock.perform("add-session", "7")
        usleep(500_000)
        XCTAssertEqual(statusLocked(), "on (control file)", "logind's unchanged value overrode the person's")
        XCTAssertLessThan(try peak("tap"), 1e-4)
        // logind's own change wins again, in both directions.
        try SessionMock.perform("locked", "3", "true")
        expectLocked("on (logind session 3)")
        try SessionMock.perform("locked", "3", "false")
        expectLocked("off (logind session 3)")
        // And a person's change after that wins over it.
        XCTAssertEqual(try cli.run(["lock", "on"]).status, 0)
        XCTAssertEqual(statusLocked(), "on (control file)")
    }

    /// The unique names `pid` holds on the session bus (`busctl --user list`).
    private func sessionBusNames(of pid: pid_t) -> [String] {
        let listed = (try? Spawned.run("/usr/bin/env", ["busctl", "--user", "list", "--unique", "--no-legend", "--no-pager"]))?.stdout ?? ""
        return listed.split(separator: "\n").compactMap { line in
            let columns = line.split(whereSeparator: \.isWhitespace)
            return columns.count > 1 && columns[1] == "\(pid)" ? String(columns[0]) : nil
        }
    }

    /// The unique name owning org.sigxcpu.Feedback, if any.
    private func feedbackOwner() -> String? {
        let result = try? Spawned.run("/usr/bin/env", ["busctl", "--user", "call", "--no-pager", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                       "org.freedesktop.DBus", "GetNameOwner", "s", "org.sigxcpu.Feedback"])
        guard result?.status == 0, let text = result?.stdout, let open = text.firstIndex(of: "\"") else { return nil }
        return String(text[text.index(after: open)...].prefix { $0 != "\"" })
    }

    func testTheScreensaversAreASecondSource() throws {
        try SessionMock.start(.gnomeScreensaver)
        try SessionMock.start(.freedesktopScreensaver)
        try startDaemon()
        expectLog("following org.gnome.ScreenSaver")
        expectLog("following org.freedesktop.ScreenSaver")
        // The screensaver source and the D-Bus face share one session-bus connection.
        XCTAssertTrue(eventually(5) { self.sessionBusNames(of: self.daemon!.pid).count == 1 && self.feedbackOwner() != nil },
                      "\(sessionBusNames(of: daemon!.pid)), org.sigxcpu.Feedback owned by \(feedbackOwner() ?? "none")")
        XCTAssertEqual(sessionBusNames(of: daemon!.pid), feedbackOwner().map { [$0] })
        try SessionMock.perform("screensaver", "gnome", "true")
        expectLocked("on (org.gnome.ScreenSaver)")
        XCTAssertLessThan(try peak("tap"), 1e-4)
        try SessionMock.perform("screensaver", "gnome", "false")
        expectLocked("off (org.gnome.ScreenSaver)")
        try SessionMock.perform("screensaver", "freedesktop", "true")
        expectLocked("on (org.freedesktop.ScreenSaver)")
        // A screensaver that appears later is followed too.
        try SessionMock.stop(.gnomeScreensaver)
        try SessionMock.start(.gnomeScreensaver)
        try SessionMock.perform("screensaver", "freedesktop", "false")
        expectLocked("off (org.freedesktop.ScreenSaver)")
        try SessionMock.perform("screensaver", "gnome", "true")
        expectLocked("on (org.gnome.ScreenSaver)")
    }

    func testNoLockSourcesMeansTheFileAlone() throws {
        try startLogind()
        try startDaemon(config: "[theme]\npaths = [\"@SOUNDS@\"]\n[session]\nlock_sources = []\n")
        expectLog("lock sources: none")
        try SessionMock.perform("locked", "3", "true")
        usleep(500_000)
        XCTAssertEqual(lockStatus(), "off", "a source the configuration turned off was followed")
    }
}
