import Foundation
import SysoundClient
import SysoundCore
import SysoundTestSupport
import XCTest

/// The D-Bus face with feedbackd's own clients (fbcli, libfeedback through
/// GI, gdbus, busctl) on the private session bus, heard (or rightly not) at
/// the PulseAudio fixture's null sink.
final class DBusFaceTests: XCTestCase {
    var daemon: DaemonProcess!
    var cli: CLI { daemon.cli }

    static let config = """
        [theme]
        paths = ["@SOUNDS@"]
        [dbus]
        allow_important = ["org.example.Clock"]
        [apps."org.example.Quiet"]
        profile = "quiet"
        [apps."org.example.Soft"]
        gain = 0.1
        """

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Pulse.require()
        try SessionMock.require()  // the private buses of Tests/fixture/with-dbus.sh, the same check
        daemon = try DaemonProcess(config: Self.config)
        XCTAssertTrue(eventually(10) { self.ownsName() }, "the daemon never took org.sigxcpu.Feedback: \(daemon.log(tail: 20))")
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, "sysound serve did not exit 0: \(daemon.log(tail: 20))") }
        super.tearDown()
    }

    func ownsName() -> Bool {
        (try? run("busctl", ["--user", "status", "--no-pager", "org.sigxcpu.Feedback"]).status) == 0
    }

    @discardableResult
    func run(_ tool: String, _ arguments: [String], timeout: Double = 20) throws -> Spawned.Result {
        try Spawned.run("/usr/bin/env", [tool] + arguments, timeout: timeout)
    }

    /// feedback-client.py (the GIO client and libfeedback through GI); its key=value line.
    func client(_ arguments: [String]) throws -> [String: String] {
        let result = try Spawned.run("/usr/bin/python3", [TestPaths.packageRoot + "/Tests/fixture/feedback-client.py"] + arguments, timeout: 30)
        var fields: [String: String] = ["status": "\(result.status)"]
        for pair in result.stdout.split(whereSeparator: \.isWhitespace) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        if result.status != 0 && fields["error"] == nil { fields["stderr"] = result.stderr }
        return fields
    }

    func fbcli(_ event: String) throws -> Spawned.Result { try Fbcli.trigger(event) }

    func busctl(_ arguments: [String]) throws -> Spawned.Result {
        try run("busctl", ["--user"] + arguments)
    }

    // MARK: Debian's clients, unchanged

    func testFbcliEventIsHeardAndProfileQuietSilencesIt() throws {
        var result: Spawned.Result!
        let loud = try Pulse.peak(0.6) { result = try fbcli("button-pressed") }
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertGreaterThan(loud, 0.05, "button-pressed was not heard")

        result = try run("fbcli", ["-P", "quiet"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try cli.run(["status", "--json"]).stdout.contains("\"silent\":\"on\"") || (try cli.run(["silent"]).stdout.contains("on")), true)
        XCTAssertEqual(try busctl(["get-property", "org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback", "Profile"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines), "s \"quiet\"")
        // Silent mode keeps a button silent; fbcli still gets its FeedbackEnded and exits 0.
        let quiet = try Pulse.peak(0.6) { result = try fbcli("button-pressed") }
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertLessThan(quiet, 1e-4, "button-pressed sounded in the quiet profile")
    }

    func testLibfeedbackThroughGIIsHeardAndEnds() throws {
        var fields: [String: String] = [:]
        let peak = try Pulse.peak(1.0) { fields = try client(["lfb", "org.example.Chat", "message-new-instant"]) }
        XCTAssertEqual(fields["ok"], "True", "\(fields)")
        XCTAssertEqual(fields["ended"], "1", "\(fields)")
        XCTAssertEqual(fields["reason"], "0", "natural end expected: \(fields)")
        XCTAssertGreaterThan(peak, 0.05)
        XCTAssertTrue(try cli.run(["status"]).stdout.contains("org.example.Chat:1"), "the app is not listed in status")
    }

    func testGdbusCallAndUnknownEvent() throws {
        let call = try run("gdbus", ["call", "--session", "-d", "org.sigxcpu.Feedback", "-o", "/org/sigxcpu/Feedback",
                                     "-m", "org.sigxcpu.Feedback.TriggerFeedback", "org.example.G", "button-released", "{}", "--", "-1"])
        XCTAssertEqual(call.status, 0, call.output)
        XCTAssertTrue(call.stdout.hasPrefix("(uint32 "), call.stdout)
        // An event the theme does not know: an id, then FeedbackEnded with feedbackd's not-found (-1 as u).
        let unknown = try client(["trigger", "org.example.G", "no-such-event", "-1"])
        XCTAssertEqual(unknown["reason"], "4294967295", "\(unknown)")
    }

    func testSoundFileHintPlaysThatFile() throws {
        let file = TestPaths.packageRoot + "/Sounds/success.wav"
        var fields: [String: String] = [:]
        // The event names nothing: the file is what plays.
        let peak = try Pulse.peak(1.0) { fields = try client(["trigger", "org.example.Files", "no-such-event", "-1", #"{"sound-file": "\#(file)"}"#]) }
        XCTAssertEqual(fields["reason"], "0", "\(fields)")
        XCTAssertGreaterThan(peak, 0.05)
        let missing = try client(["trigger", "org.example.Files", "button-pressed", "-1", #"{"sound-file": "/nonexistent/x.wav"}"#])
        XCTAssertEqual(missing["reason"], "4294967295", "\(missing)")
        XCTAssertTrue(daemon.log().contains("/nonexistent/x.wav"), daemon.log(tail: 5))
    }

    // MARK: Profile both ways, important, per-app levels

    func testProfileFollowsTheControlFilesAndEmitsPropertiesChanged() throws {
        let monitor = try Spawned("/usr/bin/env", ["gdbus", "monitor", "--session", "-d", "org.sigxcpu.Feedback"])
        defer { monitor.signal(SIGTERM); _ = monitor.wait(timeout: 5, then: SIGKILL) }
        usleep(300_000)
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        XCTAssertEqual(try cli.run(["haptics", "off"]).status, 0)
        XCTAssertTrue(eventually(5) { monitor.stdout.contains("'Profile': <'silent'>") }, monitor.stdout)
        XCTAssertEqual(try busctl(["get-property", "org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback", "Profile"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines), "s \"silent\"")
        let set = try busctl(["set-property", "org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback", "Profile", "s", "full"])
        XCTAssertEqual(set.status, 0, set.output)
        XCTAssertEqual(try cli.run(["silent"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("off"), true)
        XCTAssertTrue(eventually(5) { monitor.stdout.contains("'Profile': <'full'>") }, monitor.stdout)
        // full → silent writes two control files; clients see one change, never the quiet in between.
        func count(_ text: String) -> Int { monitor.stdout.components(separatedBy: text).count - 1 }
        let quietBefore = count("'Profile': <'quiet'>"), silentBefore = count("'Profile': <'silent'>")
        XCTAssertEqual(try busctl(["set-property", "org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback", "Profile", "s", "silent"]).status, 0)
        XCTAssertTrue(eventually(5) { count("'Profile': <'silent'>") == silentBefore + 1 }, monitor.stdout)
        usleep(200_000)
        XCTAssertEqual(count("'Profile': <'quiet'>"), quietBefore, monitor.stdout)
        let bad = try busctl(["set-property", "org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback", "Profile", "s", "loud"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("loud"), bad.stderr)
    }

    func testImportantPiercesSilentModeOnlyForTheAllowedApp() throws {
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        var fields: [String: String] = [:]
        let allowed = try Pulse.peak(1.0) { fields = try client(["trigger", "org.example.Clock", "message-new-instant", "-1", #"{"important": true}"#]) }
        XCTAssertEqual(fields["reason"], "0", "\(fields)")
        XCTAssertGreaterThan(allowed, 0.05, "the allowed app's important alert was not heard in silent mode")
        let other = try Pulse.peak(1.0) { fields = try client(["trigger", "org.example.Chat", "message-new-instant", "-1", #"{"important": true}"#]) }
        XCTAssertLessThan(other, 1e-4, "another app's important alert sounded in silent mode")
    }

    func testPerAppLevelsLowerOnBothFaces() throws {
        let full = try Pulse.peak(1.0) { _ = try client(["trigger", "org.example.Chat", "message-new-instant", "-1"]) }
        let soft = try Pulse.peak(1.0) { _ = try client(["trigger", "org.example.Soft", "message-new-instant", "-1"]) }
        let quiet = try Pulse.peak(1.0) { _ = try client(["trigger", "org.example.Quiet", "message-new-instant", "-1"]) }
        XCTAssertGreaterThan(full, 0.05)
        XCTAssertLessThan(soft, full * 0.2, "gain 0.1 did not lower the sound (\(soft) vs \(full))")
        XCTAssertGreaterThan(soft, full * 0.05, "gain 0.1 silenced it (\(soft) vs \(full))")
        XCTAssertLessThan(quiet, 1e-4, "the quiet app's alert sounded")
        // A profile hint cannot raise the app's level.
        let raised = try Pulse.peak(1.0) { _ = try client(["trigger", "org.example.Quiet", "message-new-instant", "-1", #"{"profile": "full"}"#]) }
        XCTAssertLessThan(raised, 1e-4)
        // The socket's app= gets the same levels.
        let socket = daemon.client
        let viaSocket = try Pulse.peak(1.0) { _ = try socket.send(.play(PlayRequest(.name("notification"), app: "org.example.Soft"))) }
        XCTAssertLessThan(viaSocket, full * 0.2)
        XCTAssertGreaterThan(viaSocket, full * 0.05)
        let quietSocket = try Pulse.peak(1.0) { _ = try socket.send(.play(PlayRequest(.name("notification"), app: "org.example.Quiet"))) }
        XCTAssertLessThan(quietSocket, 1e-4)
    }

    // MARK: Loops, timeouts, ends

    func testLoopsEndByTimeoutByEndFeedbackAndWhenTheCallerLeaves() throws {
        // The 1 s alarm loops until the timeout, then plays the round in
        // progress to its end (feedbackd does not cut it): expired between 1 and 2 s.
        var fields = try client(["trigger", "org.example.Clock", "alarm-clock-elapsed", "1"])
        XCTAssertEqual(fields["reason"], "1", "expired expected: \(fields)")
        XCTAssertGreaterThanOrEqual(Double(fields["seconds"] ?? "") ?? 0, 0.95, "\(fields)")
        XCTAssertLessThanOrEqual(Double(fields["seconds"] ?? "") ?? 99, 2.8, "the loop went on after its timeout: \(fields)")
        fields = try client(["end-after", "0.5", "org.example.Phone", "phone-incoming-call"])
        XCTAssertEqual(fields["reason"], "2", "explicit expected: \(fields)")
        usleep(150_000)
        XCTAssertLessThan(try Pulse.peak(0.3) {}, 1e-4, "the loop went on after EndFeedback")
        // A client that leaves mid-loop: its ringtone ends.
        fields = try client(["leave", "org.example.Phone", "phone-incoming-call"])
        XCTAssertNotNil(fields["id"], "\(fields)")
        usleep(300_000)
        XCTAssertLessThan(try Pulse.peak(0.3) {}, 1e-4, "the loop of a client that left went on")
    }

    // MARK: Bad input

    func testBadInputGetsDBusErrorsAndTheDaemonKeepsServing() throws {
        let rssBefore = daemon.rssKiB() ?? 0
        let path = ["org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback"]
        let wrong = try busctl(["call"] + path + ["TriggerFeedback", "ss", "a", "b"])
        XCTAssertNotEqual(wrong.status, 0)
        XCTAssertTrue(wrong.stderr.contains("nvalid"), wrong.stderr)
        let emptyApp = try busctl(["call"] + path + ["TriggerFeedback", "ssa{sv}i", "", "button-pressed", "0", "--", "-1"])
        XCTAssertTrue(emptyApp.stderr.contains("app id"), emptyApp.stderr)
        let emptyEvent = try busctl(["call"] + path + ["TriggerFeedback", "ssa{sv}i", "org.a", "", "0", "--", "-1"])
        XCTAssertTrue(emptyEvent.stderr.contains("event"), emptyEvent.stderr)
        // 64 KiB event name: an id and a not-found end, no crash.
        let long = try client(["trigger", "org.example.Big", String(repeating: "x", count: 65_536), "-1"])
        XCTAssertEqual(long["reason"], "4294967295", "\(long)")
        // Hints of the wrong type are ignored (and logged), as feedbackd does.
        let typed = try client(["trigger", "org.example.Hints", "button-pressed", "-1", #"{"profile": 3, "important": "yes", "sound-file": false, "x": 1.5}"#])
        XCTAssertEqual(typed["reason"], "0", "\(typed)")
        XCTAssertTrue(daemon.log().contains("ignoring hint profile=3"), daemon.log(tail: 10))
        // Haptic: a pattern that is not a(du) is InvalidArgs; no device means false.
        let vibrateBad = try busctl(["call", "org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback.Haptic", "Vibrate", "sa(dd)", "org.a", "1", "0.5", "100"])
        XCTAssertTrue(vibrateBad.stderr.contains("nvalid"), vibrateBad.output)
        let vibrate = try busctl(["call", "org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sigxcpu.Feedback.Haptic", "Vibrate", "sa(du)", "org.a", "1", "0.5", "100"])
        XCTAssertEqual(vibrate.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "b false", vibrate.output)
        // Thousands of triggers from one client: all answered (or refused with an error), memory flat.
        for _ in 0..<2 {
            let flood = try client(["flood", "3000"])
            XCTAssertEqual((Int(flood["ok"] ?? "") ?? 0) + (Int(flood["error"] ?? "") ?? 0), 3000, "\(flood)")
        }
        usleep(500_000)
        let rssAfter = daemon.rssKiB() ?? 0
        // Not under a sanitizer: AddressSanitizer keeps freed memory in quarantine (256 MiB).
        if ProcessInfo.processInfo.environment["SYSOUND_SANITIZER"] == nil {
            XCTAssertLessThan(rssAfter - rssBefore, 16 * 1024, "RSS grew from \(rssBefore) to \(rssAfter) KiB")
        }
        // The socket still serves.
        XCTAssertEqual(try cli.run(["status"]).status, 0)
        XCTAssertTrue(ownsName())
    }

    // MARK: sysound's own haptic interface

    /// `org.sysound.Haptic1` takes by name what feedbackd's `Vibrate` cannot:
    /// presets (Android's moments among them) and compositions. Valid input
    /// answers false here (no vibrator: SysoundHapticFaceTests feels it);
    /// bad input is an InvalidArgs error naming it, and the daemon serves on.
    func testPresetsAndCompositionsByNameThroughSysoundsOwnInterface() throws {
        let object = ["org.sigxcpu.Feedback", "/org/sigxcpu/Feedback"]
        let introspected = try busctl(["introspect", "--no-pager"] + object + ["org.sysound.Haptic1"])
        XCTAssertTrue(introspected.stdout.contains(".VibratePreset") && introspected.stdout.contains(".VibrateComposition"), introspected.output)
        // feedbackd's interfaces are served beside it, unchanged.
        let feedbackd = try busctl(["introspect", "--no-pager"] + object + ["org.sigxcpu.Feedback.Haptic"])
        XCTAssertTrue(feedbackd.stdout.contains(".Vibrate ") && feedbackd.stdout.contains("sa(du)"), feedbackd.output)

        func call(_ method: String, _ text: String, intensity: String = "1") throws -> Spawned.Result {
            try busctl(["call"] + object + ["org.sysound.Haptic1", method, "ssd", "org.example.Haptic", text, intensity])
        }
        for preset in ["confirm", "segment-frequent-tick", "success"] {
            let known = try call("VibratePreset", preset)
            XCTAssertEqual(known.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "b false", "\(preset): \(known.output)")
        }
        let composed = try run("gdbus", ["call", "--session", "-d", "org.sigxcpu.Feedback", "-o", "/org/sigxcpu/Feedback",
                                         "-m", "org.sysound.Haptic1.VibrateComposition", "org.example.Haptic", "click,tick:0.5@40,quick-rise", "1.0"])
        XCTAssertEqual(composed.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "(false,)", composed.output)

        let unknown = try call("VibratePreset", "confirmm")
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("unknown haptic preset \"confirmm\"") && unknown.stderr.contains("segment-tick"), unknown.stderr)
        let badPrimitive = try call("VibrateComposition", "click,bogus@40")
        XCTAssertTrue(badPrimitive.stderr.contains("primitive 2 \"bogus\" is not one of"), badPrimitive.stderr)
        let badScale = try call("VibrateComposition", "tick:7")
        XCTAssertTrue(badScale.stderr.contains("scale outside 0–1"), badScale.stderr)
        let empty = try call("VibrateComposition", "")
        XCTAssertTrue(empty.stderr.contains("empty composition"), empty.stderr)
        let loud = try call("VibratePreset", "confirm", intensity: "3")
        XCTAssertTrue(loud.stderr.contains("intensity 3.0 is outside 0–1"), loud.stderr)
        let wrongTypes = try busctl(["call"] + object + ["org.sysound.Haptic1", "VibratePreset", "ss", "org.a", "confirm"])
        XCTAssertTrue(wrongTypes.stderr.contains("nvalid"), wrongTypes.stderr)
        let badApp = try busctl(["call"] + object + ["org.sysound.Haptic1", "VibratePreset", "ssd", "", "confirm", "1"])
        XCTAssertTrue(badApp.stderr.contains("invalid app id"), badApp.stderr)

        XCTAssertEqual(try cli.run(["status"]).status, 0, "the socket stopped serving")
        XCTAssertTrue(ownsName(), "the daemon left the bus")
        XCTAssertTrue(try cli.run(["status"]).stdout.contains("org.example.Haptic:"), "the calls were not decided for the app")
    }

    // MARK: The bus going away

    func testTheBusRestartsAndTheDaemonReconnects() throws {
        guard let ctl = ProcessInfo.processInfo.environment["SYSOUND_DBUS_CTL"] else { throw XCTSkip("no SYSOUND_DBUS_CTL") }
        // On PipeWire the sound server itself needs the session bus (wireplumber
        // exits without it, see with-pipewire.sh): there the daemon's replies are
        // checked, and the sink only where the server outlives the bus.
        let sinkOutlivesBus = ProcessInfo.processInfo.environment["SYSOUND_SOUND_SERVER"] != "pipewire"
        XCTAssertEqual(try Spawned(ctl, ["stop", "session"], output: .discard).wait(), 0)
        // The socket serves on without the bus.
        var result: Spawned.Result!
        let peak = try Pulse.peak(0.6) { result = try cli.run(["play", "tap", "--verbose"]) }
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("played"), result.output)
        if sinkOutlivesBus { XCTAssertGreaterThan(peak, 0.05) }
        XCTAssertTrue(eventually(5) { self.daemon.log().contains("session bus went away") }, daemon.log(tail: 10))
        XCTAssertEqual(try Spawned(ctl, ["start", "session"], output: .discard).wait(), 0)
        XCTAssertTrue(eventually(15) { self.ownsName() }, "no reconnection: \(daemon.log(tail: 10))")
        var fields: [String: String] = [:]
        let heard = try Pulse.peak(1.0) { fields = try client(["trigger", "org.example.Back", "message-new-instant", "-1"]) }
        XCTAssertEqual(fields["reason"], "0", "\(fields)")
        if sinkOutlivesBus { XCTAssertGreaterThan(heard, 0.05, "\(fields)\n\(daemon.log(tail: 10))") }
    }
}
