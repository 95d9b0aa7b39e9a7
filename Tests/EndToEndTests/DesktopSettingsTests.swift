import Foundation
import SysoundTestSupport
import XCTest

/// The desktop's own switches, flipped as its settings apps flip them: the
/// `gsettings` tool writing through a real dconf-service on the private
/// session bus of Tests/fixture/with-dbus.sh (GNOME's and feedbackd's
/// schemas as Debian installs them), python-dbusmock's notification daemon
/// as Plasma, the real daemon, and the null sink to hear what gets through.
final class DesktopSettingsTests: XCTestCase {
    var daemon: DaemonProcess?
    var cli: CLI { daemon!.cli }
    static let environment = ProcessInfo.processInfo.environment

    static let config = """
        [theme]
        paths = ["@SOUNDS@"]
        [dbus]
        allow_important = ["org.example.Clock"]
        """

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Pulse.require()
        try SessionMock.require()
        guard Self.environment["SYSOUND_DCONF_CTL"] != nil, FileManager.default.isExecutableFile(atPath: "/usr/libexec/dconf-service") else {
            throw FixtureError("no private dconf: install dconf-service and run under Tests/fixture/with-dbus.sh (make test does both)")
        }
        // dconf-service leaves with its bus: a test that restarted the session bus took it along.
        try run(Self.environment["SYSOUND_DCONF_CTL"]!, ["start"])
        try resetAll()
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, "sysound serve did not exit 0 on SIGTERM") }
        try? resetAll()
        stopPlasma()
        super.tearDown()
    }

    func resetAll() throws {
        for schema in ["org.gnome.desktop.sound", "org.gnome.desktop.notifications", "org.sigxcpu.feedbackd"] {
            try gsettings(["reset-recursively", schema])
        }
        try gsettings(["reset", Self.appSchema("org-example-chat"), "profile"])
    }

    static func appSchema(_ munged: String) -> String {
        "org.sigxcpu.feedbackd.application:/org/sigxcpu/feedbackd/application/\(munged)/"
    }

    @discardableResult
    func run(_ path: String, _ arguments: [String]) throws -> Spawned.Result {
        let result = try Spawned.run(path, arguments, timeout: 30)
        guard result.status == 0 else { throw FixtureError("\(path) \(arguments.joined(separator: " ")) failed: \(result.output)") }
        return result
    }

    func gsettings(_ arguments: [String]) throws { try run("/usr/bin/env", ["gsettings"] + arguments) }
    func gsettings(_ arguments: String...) throws { try gsettings(arguments) }
    func gsettingsGet(_ schema: String, _ key: String) -> String {
        ((try? run("/usr/bin/env", ["gsettings", "get", schema, key]))?.stdout ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func startDaemon(config: String = DesktopSettingsTests.config) throws {
        daemon = try DaemonProcess(config: config, desktopSettings: true)
    }

    /// `sysound status` as key → value.
    func status() -> [String: String] { cli.status() }

    func expectStatus(_ key: String, _ value: String, line: UInt = #line) {
        let held = eventually(5) { status()[key] == value }
        XCTAssertTrue(held, "status \(key): \(status()[key] ?? "none"), expected \(value)\n\(daemon?.log(tail: 15) ?? "")", line: line)
    }

    func peak(_ sound: String, _ extra: [String] = [], seconds: Double = 0.6) throws -> Float {
        try Pulse.peak(seconds) { XCTAssertEqual(try cli.run(["play", sound] + extra).status, 0) }
    }

    func assertHeard(_ sound: String, _ why: String, extra: [String] = [], line: UInt = #line) throws {
        XCTAssertGreaterThan(try peak(sound, extra, seconds: sound == "notification" ? 1.0 : 0.6), 0.05, "\(sound) was not heard: \(why)", line: line)
    }

    func assertSilent(_ sound: String, _ why: String, extra: [String] = [], line: UInt = #line) throws {
        XCTAssertLessThan(try peak(sound, extra), 1e-4, "\(sound) was heard: \(why)", line: line)
    }

    // MARK: GNOME

    func testEventSoundsOffSilencesTheThemeButNotPlayback() throws {
        try startDaemon()
        expectStatus("gnome-event-sounds", "true")
        XCTAssertEqual(status()["gsettings-backend"], "DConfSettingsBackend")
        try assertHeard("tap", "event sounds are on")
        try gsettings("set", "org.gnome.desktop.sound", "event-sounds", "false")
        expectStatus("event-sounds", "off")
        try assertSilent("tap", "event-sounds is false")
        try assertSilent("notification", "event-sounds is false")
        try assertHeard("alarm", "an alarm (playback) must still sound with event sounds off")
        try gsettings("reset", "org.gnome.desktop.sound", "event-sounds")
        expectStatus("event-sounds", "on")
        try assertHeard("tap", "after the reset")
    }

    func testShowBannersFalseIsDoNotDisturb() throws {
        try startDaemon()
        try gsettings("set", "org.gnome.desktop.notifications", "show-banners", "false")
        expectStatus("do-not-disturb", "on")
        try assertSilent("notification", "do not disturb is on")
        try assertHeard("tap", "UI taps are not affected by do not disturb")
        try assertHeard("ringtone", "a ringtone (playback) must sound in do not disturb")
        // An important alert of an allowed app gets through; another app's does not.
        var heard = try Pulse.peak(1.0) { _ = try feedbackClient(["trigger", "org.example.Clock", "message-new-instant", "-1", #"{"important": true}"#]) }
        XCTAssertGreaterThan(heard, 0.05, "the allowed app's important alert was not heard in do not disturb")
        heard = try Pulse.peak(1.0) { _ = try feedbackClient(["trigger", "org.example.Chat", "message-new-instant", "-1", #"{"important": true}"#]) }
        XCTAssertLessThan(heard, 1e-4, "another app's important alert sounded in do not disturb")
        try gsettings("reset", "org.gnome.desktop.notifications", "show-banners")
        expectStatus("do-not-disturb", "off")
        try assertHeard("notification", "after the reset")
    }

    func testInputFeedbackSoundsGovernsTapsOnceSet() throws {
        try startDaemon()
        // At the schema's default (false) sysound's taps stay on.
        expectStatus("input-feedback-sounds", "on")
        try assertHeard("tap", "input-feedback-sounds is at its default")
        try gsettings("set", "org.gnome.desktop.sound", "input-feedback-sounds", "false")
        expectStatus("input-feedback-sounds", "off")
        try assertSilent("tap", "input-feedback-sounds is false")
        try assertSilent("key", "input-feedback-sounds is false")
        try assertHeard("notification", "input feedback is not about alerts")
        try gsettings("set", "org.gnome.desktop.sound", "input-feedback-sounds", "true")
        expectStatus("input-feedback-sounds", "on")
        try assertHeard("tap", "input-feedback-sounds is true")
        try gsettings("set", "org.gnome.desktop.sound", "input-feedback-sounds", "false")
        expectStatus("input-feedback-sounds", "off")
        try gsettings("reset", "org.gnome.desktop.sound", "input-feedback-sounds")
        expectStatus("input-feedback-sounds", "on")
        try assertHeard("tap", "after the reset")
    }

    func testThemeNamePicksTheXDGFallbackIncludingCustom() throws {
        // GNOME Settings' alert chooser writes $XDG_DATA_HOME/sounds/__custom/.
        let data = NSTemporaryDirectory() + "sysound-xdg-\(UUID().uuidString.prefix(8))"
        let theme = data + "/sounds/__custom"
        try FileManager.default.createDirectory(atPath: theme + "/stereo", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: data) }
        try "[Sound Theme]\nName=Custom\nInherits=freedesktop\nDirectories=stereo\n\n[stereo]\nOutputProfile=stereo\n"
            .write(toFile: theme + "/index.theme", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: TestPaths.packageRoot + "/Sounds/bell.wav", toPath: theme + "/stereo/sysound-desktop-test.wav")
        setenv("XDG_DATA_HOME", data, 1)
        defer { unsetenv("XDG_DATA_HOME") }
        try startDaemon()
        XCTAssertNotEqual(try cli.run(["play", "sysound-desktop-test"]).status, 0, "a sound only __custom has played without it")
        try gsettings("set", "org.gnome.desktop.sound", "theme-name", "__custom")
        expectStatus("xdg-theme", "__custom")
        try assertHeard("sysound-desktop-test", "theme-name is __custom")
        try gsettings("reset", "org.gnome.desktop.sound", "theme-name")
        expectStatus("xdg-theme", "freedesktop")
        XCTAssertNotEqual(try cli.run(["play", "sysound-desktop-test"]).status, 0, "the reset theme still played __custom's sound")
    }

    // MARK: feedbackd's settings

    func testFeedbackdProfileIsSilentModeBothWays() throws {
        try startDaemon()
        expectStatus("feedbackd-profile", "full")
        try gsettings("set", "org.sigxcpu.feedbackd", "profile", "quiet")
        expectStatus("silent", "on")
        XCTAssertEqual(status()["haptics"], "on")
        try assertSilent("tap", "feedbackd's profile is quiet")
        try gsettings("set", "org.sigxcpu.feedbackd", "profile", "silent")
        expectStatus("haptics", "off")
        try gsettings("reset", "org.sigxcpu.feedbackd", "profile")
        expectStatus("silent", "off")
        expectStatus("haptics", "on")
        try assertHeard("tap", "after the reset")
        // The other way: silent mode writes feedbackd's key.
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        XCTAssertTrue(eventually(5) { gsettingsGet("org.sigxcpu.feedbackd", "profile") == "'quiet'" },
                      "feedbackd's profile: \(gsettingsGet("org.sigxcpu.feedbackd", "profile"))")
        XCTAssertEqual(try cli.run(["haptics", "off"]).status, 0)
        XCTAssertTrue(eventually(5) { gsettingsGet("org.sigxcpu.feedbackd", "profile") == "'silent'" })
        XCTAssertEqual(try cli.run(["silent", "off"]).status, 0)
        XCTAssertEqual(try cli.run(["haptics", "on"]).status, 0)
        XCTAssertTrue(eventually(5) { gsettingsGet("org.sigxcpu.feedbackd", "profile") == "'full'" })
        usleep(300_000)
        XCTAssertEqual(status()["silent"], "off", "a write-back flipped silent mode")
    }

    func testAProfileSetWhileStoppedAppliesToAFreshSession() throws {
        try gsettings("set", "org.sigxcpu.feedbackd", "profile", "quiet")
        try startDaemon()
        expectStatus("silent", "on")
        try assertSilent("tap", "feedbackd's profile was quiet when the daemon started")
    }

    func testPerAppProfileOnBothFaces() throws {
        try startDaemon()
        try gsettings("set", Self.appSchema("org-example-chat"), "profile", "silent")
        try assertSilent("tap", "the app's feedbackd profile is silent", extra: ["--app", "org.example.Chat"])
        XCTAssertTrue(eventually(5) { status()["feedbackd-apps"]?.contains("org.example.Chat:silent") == true }, "\(status())")
        try assertHeard("tap", "another app", extra: ["--app", "org.example.Other"])
        let dbus = try Pulse.peak(1.0) { _ = try feedbackClient(["trigger", "org.example.Chat", "message-new-instant", "-1"]) }
        XCTAssertLessThan(dbus, 1e-4, "the app's alert sounded over D-Bus")
        try gsettings("reset", Self.appSchema("org-example-chat"), "profile")
        XCTAssertTrue(eventually(5) { status()["feedbackd-apps"]?.contains("org.example.Chat:full") == true }, "\(status())")
        try assertHeard("tap", "after the reset", extra: ["--app", "org.example.Chat"])
    }

    /// feedbackd's own `theme` setting (what phosh-mobile-settings writes)
    /// names the D-Bus face's theme once the user sets it, found as NAME.json
    /// in `$XDG_CONFIG_HOME/feedbackd/themes` (the fixture's, where its dconf
    /// database lives too); its reset goes back to the configuration's (here
    /// feedbackd's `default`, which knows no such event).
    func testFeedbackdThemeSettingChoosesTheDBusFacesTheme() throws {
        let themes = try XCTUnwrap(Self.environment["XDG_CONFIG_HOME"]) + "/feedbackd/themes"
        let file = themes + "/sysound-test-mine.json"
        try FileManager.default.createDirectory(atPath: themes, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
            {"name": "sysound-test-mine", "parent-name": "default", "profiles": [
              {"name": "full", "feedbacks": [
                {"event-name": "org.example.only-in-mine", "type": "Sound", "effect": "bell"}]}]}
            """.write(toFile: file, atomically: true, encoding: .utf8)
        try startDaemon()
        func event() throws -> Float {
            try Pulse.peak(1.0) { _ = try feedbackClient(["trigger", "org.example.Chat", "org.example.only-in-mine", "-1"]) }
        }
        expectStatus("feedbackd-theme-setting", "?")
        XCTAssertLessThan(try event(), 1e-4, "an event only the user's theme knows sounded before the theme was chosen")
        try gsettings("set", "org.sigxcpu.feedbackd", "theme", "sysound-test-mine")
        XCTAssertTrue(eventually(5) { status()["feedbackd-theme-in-use"]?.hasPrefix("sysound-test-mine:") == true },
                      "\(status()["feedbackd-theme-in-use"] ?? "none")\n\(daemon!.log(tail: 15))")
        XCTAssertGreaterThan(try event(), 0.05, "the theme feedbackd's setting names was not used")
        try gsettings("reset", "org.sigxcpu.feedbackd", "theme")
        XCTAssertTrue(eventually(5) { status()["feedbackd-theme-in-use"]?.hasPrefix("sysound-test-mine:") == false }, "\(status())")
        XCTAssertLessThan(try event(), 1e-4, "the user's theme was still used after the setting's reset")
    }

    func testFeedbackd08AllowImportantAndMaxHapticStrength() throws {
        // feedbackd 0.8's schema in a private schema directory, searched first.
        let schemas = NSTemporaryDirectory() + "sysound-schemas-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: schemas, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: schemas) }
        try FileManager.default.copyItem(
            atPath: TestPaths.packageRoot + "/Tests/fixture/feedbackd-0.8/org.sigxcpu.feedbackd.gschema.xml",
            toPath: schemas + "/org.sigxcpu.feedbackd.gschema.xml")
        try run("/usr/bin/env", ["glib-compile-schemas", schemas])
        setenv("GSETTINGS_SCHEMA_DIR", schemas, 1)
        defer {
            try? resetAll()
            unsetenv("GSETTINGS_SCHEMA_DIR")
        }
        try resetAll()
        try startDaemon()
        expectStatus("feedbackd-allow-important", "none")
        expectStatus("feedbackd-max-haptic-strength", "1.0")
        try gsettings("set", "org.sigxcpu.feedbackd", "allow-important", "['org.example.Chat']")
        expectStatus("feedbackd-allow-important", "org.example.Chat")
        try gsettings("set", "org.gnome.desktop.notifications", "show-banners", "false")
        expectStatus("do-not-disturb", "on")
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        let chat = try Pulse.peak(1.0) { _ = try feedbackClient(["trigger", "org.example.Chat", "message-new-instant", "-1", #"{"important": true}"#]) }
        XCTAssertGreaterThan(chat, 0.05, "feedbackd's allow-important did not let the app's important alert through")
        let clock = try Pulse.peak(1.0) { _ = try feedbackClient(["trigger", "org.example.Clock", "message-new-instant", "-1", #"{"important": true}"#]) }
        XCTAssertGreaterThan(clock, 0.05, "[dbus] allow_important stopped counting beside feedbackd's list")
        let other = try Pulse.peak(1.0) { _ = try feedbackClient(["trigger", "org.example.Other", "message-new-instant", "-1", #"{"important": true}"#]) }
        XCTAssertLessThan(other, 1e-4, "an app on neither list pierced silent mode and do not disturb")
        try gsettings("reset", "org.sigxcpu.feedbackd", "allow-important")
        expectStatus("feedbackd-allow-important", "none")
        let after = try Pulse.peak(1.0) { _ = try feedbackClient(["trigger", "org.example.Chat", "message-new-instant", "-1", #"{"important": true}"#]) }
        XCTAssertLessThan(after, 1e-4, "the reset allow-list still let the app through")
        try gsettings("set", "org.sigxcpu.feedbackd", "max-haptic-strength", "0.25")
        expectStatus("feedbackd-max-haptic-strength", "0.25")
        // Out of the schema's range: gsettings refuses it, the daemon keeps the value.
        XCTAssertNotEqual(try Spawned.run("/usr/bin/env", ["gsettings", "set", "org.sigxcpu.feedbackd", "max-haptic-strength", "3"]).status, 0)
        XCTAssertEqual(status()["feedbackd-max-haptic-strength"], "0.25")
    }

    // MARK: Plasma

    func testPlasmaInhibitedIsDoNotDisturb() throws {
        try startPlasma(inhibited: false)
        try startDaemon()
        expectStatus("plasma-inhibited", "false")
        try assertHeard("notification", "Plasma is not inhibited")
        try plasma("Inhibited", true)
        expectStatus("do-not-disturb", "on")
        try assertSilent("notification", "Plasma's do not disturb")
        try assertHeard("tap", "UI taps are not affected")
        try plasma("Inhibited", false)
        expectStatus("do-not-disturb", "off")
        // The server leaving ends its inhibition; one coming back is read again.
        try plasma("Inhibited", true)
        expectStatus("do-not-disturb", "on")
        stopPlasma()
        expectStatus("do-not-disturb", "off")
        try startPlasma(inhibited: true)
        expectStatus("do-not-disturb", "on")
        try assertSilent("notification", "Plasma came back inhibited")
        // Another server, without the property: not inhibited.
        stopPlasma()
        try startPlainNotificationServer()
        expectStatus("do-not-disturb", "off")
        XCTAssertTrue(status()["plasma-inhibited"]?.hasPrefix("the notification server has no Inhibited property") == true, "\(status())")
        try assertHeard("notification", "a server without Inhibited is not do not disturb")
    }

    // MARK: Sources that are not there

    func testNoSchemasAndNoSessionBusAreOneLogLineEach() throws {
        let empty = NSTemporaryDirectory() + "sysound-noschema-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        setenv("XDG_DATA_DIRS", empty, 1)
        // No GIO modules: GLib falls back to its keyfile backend, as without dconf-gsettings-backend.
        setenv("GIO_MODULE_DIR", empty, 1)
        let bus = Self.environment["DBUS_SESSION_BUS_ADDRESS"]!
        setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=\(empty)/no-bus", 1)
        defer {
            unsetenv("XDG_DATA_DIRS")
            unsetenv("GIO_MODULE_DIR")
            setenv("DBUS_SESSION_BUS_ADDRESS", bus, 1)
        }
        try startDaemon()
        XCTAssertTrue(eventually(5) { daemon!.log().contains("not installed") }, daemon!.log(tail: 20))
        let log = daemon!.log()
        XCTAssertEqual(log.components(separatedBy: "not installed").count - 1, 1, "one line for the missing schemas:\n\(log)")
        XCTAssertEqual(log.components(separatedBy: "Plasma's do not disturb is followed once").count - 1, 1, log)
        XCTAssertEqual(log.components(separatedBy: "GSettings has no dconf backend here").count - 1, 1, log)
        XCTAssertEqual(status()["gsettings-backend"], "GKeyfileSettingsBackend")
        try assertHeard("tap", "the daemon serves without the desktop's settings")
        XCTAssertEqual(status()["do-not-disturb"], "off")
    }

    func testTheSessionBusRestartingIsFollowedAgain() throws {
        try startDaemon()
        try gsettings("set", "org.gnome.desktop.sound", "event-sounds", "false")
        expectStatus("event-sounds", "off")
        let dconf = Self.environment["SYSOUND_DCONF_CTL"]!
        try run(dconf, ["stop"])
        try SessionMock.bus("stop", "session")
        defer {
            try? SessionMock.bus("start", "session")
            try? run(dconf, ["start"])
        }
        XCTAssertTrue(eventually(5) { daemon!.log().contains("the session bus went away") }, daemon!.log(tail: 10))
        XCTAssertTrue(daemon!.isRunning, "the daemon died with the session bus")
        try SessionMock.bus("start", "session")
        try run(dconf, ["start"])
        // The daemon's bus connection comes back with back-off of at most 5 s.
        XCTAssertTrue(eventually(12) { daemon!.log().components(separatedBy: "D-Bus: serving org.sigxcpu.Feedback").count == 3 }, daemon!.log(tail: 10))
        try gsettings("set", "org.gnome.desktop.sound", "event-sounds", "true")
        expectStatus("event-sounds", "on")
        try gsettings("set", "org.gnome.desktop.notifications", "show-banners", "false")
        expectStatus("do-not-disturb", "on")
        try assertSilent("notification", "do not disturb set after the bus came back")
    }

    // MARK: Helpers

    func feedbackClient(_ arguments: [String]) throws -> Spawned.Result {
        try Spawned.run("/usr/bin/python3", [TestPaths.packageRoot + "/Tests/fixture/feedback-client.py"] + arguments, timeout: 30)
    }

    var plasmaProcess: Spawned?

    /// python-dbusmock's notification daemon with plasmashell's `Inhibited`
    /// property (Tests/fixture/plasma_notifications.py).
    func startPlasma(inhibited: Bool) throws {
        plasmaProcess = try Spawned("/usr/bin/python3", [
            "-m", "dbusmock", "--session", "--template", TestPaths.packageRoot + "/Tests/fixture/plasma_notifications.py",
            "-p", #"{"inhibited": \#(inhibited)}"#,
        ])
        try run("/usr/bin/env", ["gdbus", "wait", "--session", "--timeout", "10", "org.freedesktop.Notifications"])
    }

    /// A notification server without the property (GNOME Shell, dunst, mako).
    func startPlainNotificationServer() throws {
        plasmaProcess = try Spawned("/usr/bin/python3", ["-m", "dbusmock", "--session", "--template", "notification_daemon"])
        try run("/usr/bin/env", ["gdbus", "wait", "--session", "--timeout", "10", "org.freedesktop.Notifications"])
    }

    func plasma(_ property: String, _ value: Bool) throws {
        try run("/usr/bin/env", [
            "gdbus", "call", "--session", "-d", "org.freedesktop.Notifications", "-o", "/org/freedesktop/Notifications",
            "-m", "org.freedesktop.DBus.Mock.UpdateProperties", "org.freedesktop.Notifications", "{'\(property)': <\(value)>}",
        ])
    }

    func stopPlasma() {
        guard let plasmaProcess else { return }
        plasmaProcess.signal(SIGTERM)
        _ = plasmaProcess.wait(timeout: 5, then: SIGKILL)
        self.plasmaProcess = nil
    }
}
