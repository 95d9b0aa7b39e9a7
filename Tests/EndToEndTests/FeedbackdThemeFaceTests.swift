import Foundation
import SysoundCore
import SysoundTestSupport
import XCTest

/// feedbackd's themes over the D-Bus face, with feedbackd's own clients on
/// the private session bus: a custom theme named by FEEDBACK_THEME (parent
/// `default`) decides what an event plays, heard at the null sink and
/// matched against the clip it names.
final class FeedbackdThemeFaceTests: XCTestCase {
    var daemon: DaemonProcess!
    var directory = ""
    var themeFile: String { directory + "/custom.json" }

    /// message-new-instant remapped to `bell` (sysound's own is `notification`),
    /// an event only this theme knows, and button-pressed blanked; two
    /// events with media roles, one unknown to sysound.
    static let theme = """
        {"name": "custom", "parent-name": "default", "profiles": [
          {"name": "full", "feedbacks": [
            {"event-name": "message-new-instant", "type": "Sound", "effect": "bell"},
            {"event-name": "org.example.only-in-this-theme", "type": "Sound", "effect": "camera-shutter"},
            {"event-name": "org.example.wake-up", "type": "Sound", "effect": "bell", "media-role": "Alarm"},
            {"event-name": "org.example.odd-role", "type": "Sound", "effect": "bell", "media-role": "Karaoke"},
            {"event-name": "button-pressed", "type": "Dummy"},
            {"event-name": "org.example.held", "type": "Dummy", "duration": 10000},
            {"event-name": "org.example.beat", "type": "Dummy", "duration": 400}]}]}
        """

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Pulse.require()
        try SessionMock.require()  // the private buses of Tests/fixture/with-dbus.sh, the same check
        directory = NSTemporaryDirectory() + "sysound-fbtheme-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.theme.write(toFile: themeFile, atomically: true, encoding: .utf8)
        daemon = try DaemonProcess(config: "[theme]\npaths = [\"@SOUNDS@\"]\n", environment: ["FEEDBACK_THEME": themeFile])
        XCTAssertTrue(eventually(10) { self.ownsName() }, "the daemon never took org.sigxcpu.Feedback: \(daemon.log(tail: 20))")
        XCTAssertTrue(daemon.log().contains("custom.json"), "the theme was not loaded: \(daemon.log(tail: 20))")
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, "sysound serve did not exit 0: \(daemon.log(tail: 20))") }
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    func ownsName() -> Bool {
        (try? Spawned.run("/usr/bin/env", ["busctl", "--user", "status", "--no-pager", "org.sigxcpu.Feedback"]).status) == 0
    }

    func fbcli(_ event: String) throws -> Spawned.Result { try Fbcli.trigger(event) }

    /// libfeedback through GI (Tests/fixture/feedback-client.py `lfb`): its key=value line.
    func lfb(_ event: String, timeout: Int32 = -1, endAfter seconds: Double? = nil) throws -> [String: String] {
        var arguments = [TestPaths.packageRoot + "/Tests/fixture/feedback-client.py", "lfb", "org.example.Lfb", event, "\(timeout)"]
        if let seconds { arguments.append("\(seconds)") }
        let result = try Spawned.run("/usr/bin/python3", arguments, timeout: 30)
        XCTAssertEqual(result.status, 0, result.output)
        var fields: [String: String] = [:]
        for pair in result.stdout.split(whereSeparator: \.isWhitespace) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// The left channel of what `action` made the sink play (up to `seconds`).
    func recorded(_ seconds: Double, _ action: () throws -> Void) throws -> [Float] {
        let recording = try MonitorRecording()
        try action()
        return try recording.samples(secondsFromNow: seconds)
    }

    /// How closely the recording, from its onset, follows the clip `name` of
    /// sysound's theme: the best correlation within ±10 ms of alignment.
    func likeness(_ samples: [Float], to name: String) throws -> Double {
        let clip = try readSamples(TestPaths.packageRoot + "/Sounds/\(name).wav").samples
        guard let peak = samples.map(abs).max(), peak > 0.01, let onset = Signal.onset(samples, threshold: peak * 0.05),
            let clipOnset = Signal.onset(clip, threshold: (clip.map(abs).max() ?? 0) * 0.05)
        else { return 0 }
        // The alignment from the first 25 ms (a noisy clip's 5 % onset can
        // move by milliseconds with its level), then the likeness over 100 ms.
        let length = min(4_800, clip.count - clipOnset), window = min(1_200, length)
        var best = (lag: 0, r: -1.0)
        for lag in -480...480 {
            let start = onset + lag
            guard start >= 0, start + window <= samples.count else { continue }
            let r = Signal.correlation(samples[start..<(start + window)], clip[clipOnset..<(clipOnset + window)])
            if r > best.r { best = (lag, r) }
        }
        let start = onset + best.lag
        guard start >= 0, start + length <= samples.count else { return best.r }
        return Signal.correlation(samples[start..<(start + length)], clip[clipOnset..<(clipOnset + length)])
    }

    /// The recording of `event` played through fbcli, and its likeness to
    /// `clip`: the better of two tries, as one recording on a loaded machine
    /// can hold a dropout (the sink's, not the daemon's).
    func heard(_ event: String, as clip: String) throws -> (samples: [Float], likeness: Double) {
        var best: (samples: [Float], likeness: Double) = ([], -1)
        for _ in 0..<2 where best.likeness < 0.9 {
            var result: Spawned.Result!
            let samples = try recorded(1.5) { result = try fbcli(event) }
            XCTAssertEqual(result.status, 0, result.output)
            let likeness = try likeness(samples, to: clip)
            if likeness > best.likeness { best = (samples, likeness) }
        }
        return best
    }

    func testTheRemappedEventIsHeardAsTheThemesClip() throws {
        let (samples, bell) = try heard("message-new-instant", as: "bell")
        let notification = try likeness(samples, to: "notification")
        XCTAssertGreaterThan(bell, 0.9, "message-new-instant is not heard as the theme's bell (bell \(bell), notification \(notification))")
        XCTAssertGreaterThan(bell, notification + 0.2, "bell \(bell), notification \(notification)")
    }

    func testAnEventOnlyTheThemeKnowsIsHeard() throws {
        let shutter = try heard("org.example.only-in-this-theme", as: "camera-shutter").likeness
        XCTAssertGreaterThan(shutter, 0.9, "the theme's own event was not heard as camera-shutter")
    }

    /// The theme's `media-role` is the role of the stream the event's sound
    /// plays on: `bell` with role Alarm opens a stream of that role
    /// and is heard there; without one (event) it stays on the event stream;
    /// an unknown role plays as event, with a warning naming file and key.
    func testTheThemesMediaRoleIsTheStreamsRole() throws {
        func roles() throws -> [String] {
            try MediaRoleTests.sinkInputs().filter { $0.pid == "\(daemon.pid)" }.compactMap(\.role).sorted()
        }
        XCTAssertGreaterThan(try heard("message-new-instant", as: "bell").likeness, 0.9)
        XCTAssertEqual(try roles(), ["event"], "an event-role sound opened another stream")
        XCTAssertGreaterThan(try heard("org.example.wake-up", as: "bell").likeness, 0.9, "the Alarm-role event was not heard")
        XCTAssertEqual(try roles(), ["Alarm", "event"], "the theme's Alarm role has no stream of its own")
        XCTAssertGreaterThan(try heard("org.example.odd-role", as: "bell").likeness, 0.9)
        XCTAssertEqual(try roles(), ["Alarm", "event"], "an unknown role opened a stream")
        let log = daemon.log()
        XCTAssertTrue(log.contains("custom.json") && log.contains("media-role") && log.contains("Karaoke"), daemon.log(tail: 30))
    }

    func testADummyEntrySilencesAnInheritedEvent() throws {
        var result: Spawned.Result!
        let silent = try recorded(1.0) { result = try fbcli("button-pressed") }
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertLessThan(Signal.peak(silent), 1e-4, "button-pressed sounded through the dummy entry")
        // The parent's other events still play: button-released (Debian's
        // default theme, else sysound's own name of it).
        let heard = try recorded(1.0) { result = try fbcli("button-released") }
        XCTAssertGreaterThan(Signal.peak(heard), 0.05, "button-released was not heard")
    }

    func testAnElevenStepVibrateIsRefusedAndMagnitudesAreClamped() throws {
        func vibrate(_ steps: [String]) throws -> Spawned.Result {
            try Spawned.run("/usr/bin/env", ["busctl", "--user", "call", "--", "org.sigxcpu.Feedback", "/org/sigxcpu/Feedback",
                                             "org.sigxcpu.Feedback.Haptic", "Vibrate", "sa(du)", "org.a", "\(steps.count)"] + steps.flatMap { $0.split(separator: " ").map(String.init) })
        }
        let eleven = try vibrate(Array(repeating: "0.5 20", count: 11))
        XCTAssertEqual(eleven.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "b false", eleven.output)
        XCTAssertTrue(eventually(3) { self.daemon.log().contains("more than 10 steps; refused") }, daemon.log(tail: 5))
        // Out-of-range magnitudes and long steps are taken as feedbackd takes
        // them (clamped), not refused; no vibrator here answers false.
        let clamped = try vibrate(["2.5 100", "-1 20000", "1 10000", "1 10000", "1 10000"])
        XCTAssertEqual(clamped.status, 0, clamped.output)
        XCTAssertEqual(clamped.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "b false", clamped.output)
    }

    func testSIGHUPReloadsTheTheme() throws {
        let changed = Self.theme.replacingOccurrences(of: #""effect": "camera-shutter""#, with: #""effect": "bell""#)
        try changed.write(toFile: themeFile, atomically: true, encoding: .utf8)
        let loads = daemon.log().components(separatedBy: "feedbackd theme \"").count
        daemon.signal(SIGHUP)
        XCTAssertTrue(eventually(5) { self.daemon.log().components(separatedBy: "feedbackd theme \"").count > loads }, daemon.log(tail: 10))
        XCTAssertGreaterThan(try heard("org.example.only-in-this-theme", as: "bell").likeness, 0.9, "the reloaded theme's sound was not heard")
    }

    func testCheckAndListShowTheTheme() throws {
        let cli = daemon.cli
        func check(_ file: String) throws -> Spawned.Result { try Spawned.run(try TestPaths.sysound, ["check", file]) }
        let ok = try check(themeFile)
        XCTAssertEqual(ok.status, 0, ok.output)
        let broken = directory + "/broken.json"
        try #"{"profiles": [{"name": "full", "feedbacks": [{"event-name": "x", "type": "Smell"}]}]}"#.write(toFile: broken, atomically: true, encoding: .utf8)
        let warned = try check(broken)
        XCTAssertEqual(warned.status, 0, "a bad entry is a warning: \(warned.output)")
        XCTAssertTrue(warned.stderr.contains("broken.json") && warned.stderr.contains("profiles[0].feedbacks[0].type"), warned.output)
        try "{".write(toFile: broken, atomically: true, encoding: .utf8)
        XCTAssertEqual(try check(broken).status, 78)
        let list = try cli.run(["list", "--dbus", "--theme", themeFile])
        XCTAssertEqual(list.status, 0, list.output)
        let line = list.stdout.split(separator: "\n").first { $0.hasPrefix("org.example.only-in-this-theme ") }
        XCTAssertTrue(line?.contains("sound camera-shutter") == true, list.stdout)
        let dummy = list.stdout.split(separator: "\n").first { $0.hasPrefix("button-pressed ") }
        XCTAssertTrue(dummy?.contains("nothing (dummy)") == true, list.stdout)
    }

    // MARK: An event's lifecycle through libfeedback (feedbackd's fbd-event.c)

    /// feedbackd's own test drives a Dummy of 10 s and ends it: the event
    /// runs until `EndFeedback`, and libfeedback reports explicit (2).
    func testADummyWithADurationRunsUntilEndFeedbackAndEndsExplicit() throws {
        let fields = try lfb("org.example.held", endAfter: 1.0)
        XCTAssertEqual(fields["ok"], "True", "\(fields)")
        XCTAssertEqual(fields["reason"], "2", "explicit expected: \(fields)")
        XCTAssertGreaterThanOrEqual(Double(fields["seconds"] ?? "") ?? 0, 0.9, "the event ended before EndFeedback: \(fields)")
        // Not ended, it lasts its duration and ends natural (0): shown with the 400 ms one.
        let natural = try lfb("org.example.beat")
        XCTAssertEqual(natural["reason"], "0", "\(natural)")
        XCTAssertGreaterThanOrEqual(Double(natural["seconds"] ?? "") ?? 0, 0.38, "\(natural)")
    }

    /// Timeout 1 s over a 400 ms Dummy: it runs again until 1 s has passed,
    /// ends when the run in progress ends (1.2 s, not cut at 1 s), and
    /// libfeedback reports expired (1), the reason it documents.
    func testATimeoutLoopsTheEventAndEndsExpired() throws {
        let fields = try lfb("org.example.beat", timeout: 1)
        XCTAssertEqual(fields["reason"], "1", "expired expected: \(fields)")
        XCTAssertGreaterThanOrEqual(Double(fields["seconds"] ?? "") ?? 0, 1.15, "the run in progress was cut at the timeout: \(fields)")
        // Timeout 0 loops it until EndFeedback.
        let loop = try lfb("org.example.beat", timeout: 0, endAfter: 1.5)
        XCTAssertEqual(loop["reason"], "2", "\(loop)")
        XCTAssertGreaterThanOrEqual(Double(loop["seconds"] ?? "") ?? 0, 1.4, "the loop ended before EndFeedback: \(loop)")
    }

    func testAMissingEventIsNotFound() throws {
        let fields = try lfb("org.example.no-such-event")
        XCTAssertEqual(fields["reason"], "-1", "not-found expected: \(fields)")
    }
}
