import Foundation
import SysoundConfig
import SysoundCore
import XCTest

/// feedbackd's JSON themes as feedbackd reads them: lenient parsing, the
/// lookup (FEEDBACK_THEME, the name in the XDG directories, `$device`),
/// parent chains, profile sections, dummy entries, and Debian's own theme.
final class FeedbackdThemeTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try makeTemporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func parse(_ json: String) -> (FeedbackdThemeFile?, [Diagnostic]) {
        FeedbackdThemeFile.parse(Data(json.utf8), file: "t.json")
    }

    /// An environment whose only theme directory is `dir/data/feedbackd/themes`.
    var environment: [String: String] { ["HOME": dir, "XDG_CONFIG_HOME": dir + "/config", "XDG_DATA_DIRS": dir + "/data"] }

    func install(_ name: String, _ json: String, config: Bool = false) throws {
        try write(json, to: dir + (config ? "/config" : "/data") + "/feedbackd/themes/\(name).json")
    }

    func testTypesAreParsedIntoTypedValues() throws {
        let (theme, problems) = parse("""
            {"name": "t", "parent-name": "default", "profiles": [
              {"name": "full", "feedbacks": [
                {"event-name": "a", "type": "Sound", "effect": "bell", "media-role": "Alarm"},
                {"event-name": "b", "type": "Sound", "effect": "tap"}]},
              {"name": "quiet", "feedbacks": [
                {"event-name": "a", "type": "VibraRumble", "duration": 20, "count": 3, "pause": 10, "magnitude": 0.5},
                {"event-name": "b", "type": "VibraPeriodic", "duration": 1000, "magnitude": 0.8, "fade-in-time": 200, "fade-in-level": 0.2},
                {"event-name": "c", "type": "VibraPattern", "magnitudes": [1, 0, 0.5], "durations": [10, 20, 30]},
                {"event-name": "d", "type": "Dummy"},
                {"event-name": "e", "type": "Dummy", "duration": 10000}]},
              {"name": "silent", "feedbacks": [{"event-name": "a", "type": "Led", "color": "blue", "frequency": 1000}]}]}
            """)
        XCTAssertEqual(problems, [])
        let t = try XCTUnwrap(theme)
        XCTAssertEqual(t.parentName, "default")
        XCTAssertEqual(t.sections[.full]?["a"], .sound(FeedbackdSound(effect: "bell", mediaRole: .alarm)))
        XCTAssertEqual(t.sections[.full]?["b"], .sound(FeedbackdSound(effect: "tap", mediaRole: .event)))
        XCTAssertEqual(t.sections[.quiet]?["a"]?.hapticPattern, try HapticPattern(parsing: "0.5:20,0:10,0.5:20,0:10,0.5:20"))
        XCTAssertEqual(t.sections[.quiet]?["c"]?.hapticPattern, try HapticPattern(parsing: "1:10,0:20,0.5:30"))
        XCTAssertEqual(t.sections[.quiet]?["d"], .dummy(durationMs: 0))
        XCTAssertEqual(t.sections[.quiet]?["e"], .dummy(durationMs: 10000), "a Dummy's duration keeps its event running")
        XCTAssertEqual(t.sections[.silent]?["a"], .led(FeedbackdLed(color: "blue", frequency: 1000)))
        // The periodic's fade-in rises in steps from its level to the magnitude; the rest holds the magnitude.
        let periodic = try XCTUnwrap(t.sections[.quiet]?["b"]?.hapticPattern)
        XCTAssertEqual(periodic.durationMs, 1000)
        XCTAssertEqual(periodic.steps.first?.magnitude ?? 0, 0.2, accuracy: 1e-9)
        XCTAssertEqual(periodic.steps.last, HapticStep(magnitude: 0.8, durationMs: 800))
        XCTAssertEqual(periodic.steps.map(\.magnitude), periodic.steps.map(\.magnitude).sorted())
    }

    func testABadEntryIsAWarningNamingFileAndKeyAndTheRestIsUsed() throws {
        let (theme, problems) = parse("""
            {"name": "t", "profiles": [
              {"name": "full", "feedbacks": [
                {"event-name": "ok", "type": "Sound", "effect": "tap"},
                {"event-name": "bad-type", "type": "Smell"},
                {"event-name": "no-effect", "type": "Sound"},
                {"event-name": "bad-duration", "type": "VibraRumble", "duration": "long"},
                {"event-name": "bad-pattern", "type": "VibraPattern", "magnitudes": [1], "durations": [1, 2]},
                {"type": "Sound", "effect": "x"},
                42]},
              {"name": "loud", "feedbacks": []}]}
            """)
        let t = try XCTUnwrap(theme)
        XCTAssertEqual(t.sections[.full]?["ok"], .sound(FeedbackdSound(effect: "tap", mediaRole: .event)))
        // A bad value falls back to the type's default; a bad entry is skipped.
        XCTAssertEqual(t.sections[.full]?["bad-duration"], .rumble(FeedbackdRumble()))
        XCTAssertNil(t.sections[.full]?["bad-type"])
        XCTAssertNil(t.sections[.full]?["no-effect"])
        XCTAssertNil(t.sections[.full]?["bad-pattern"])
        XCTAssertFalse(problems.containsErrors, "\(problems)")
        XCTAssertTrue(problems.allSatisfy { $0.file == "t.json" && $0.key != nil }, "\(problems)")
        let keys = Set(problems.compactMap(\.key))
        for key in ["profiles[0].feedbacks[1].type", "profiles[0].feedbacks[2].effect", "profiles[0].feedbacks[3].duration",
                    "profiles[0].feedbacks[4].magnitudes", "profiles[0].feedbacks[5].event-name", "profiles[0].feedbacks[6]", "profiles[1].name"] {
            XCTAssertTrue(keys.contains(key), "no warning at \(key): \(problems)")
        }
        XCTAssertTrue(problems.contains { $0.message.contains("Smell") })
    }

    func testMediaRolesAreTypedAndAnUnknownOneIsEventWithAWarning() throws {
        let (theme, problems) = parse("""
            {"name": "t", "profiles": [{"name": "full", "feedbacks": [
                {"event-name": "ring", "type": "Sound", "effect": "bell", "media-role": "Ringtone"},
                {"event-name": "sos", "type": "Sound", "effect": "bell", "media-role": "emergency"},
                {"event-name": "odd", "type": "Sound", "effect": "bell", "media-role": "Karaoke"}]}]}
            """)
        let t = try XCTUnwrap(theme)
        XCTAssertEqual(t.sections[.full]?["ring"], .sound(FeedbackdSound(effect: "bell", mediaRole: .ringtone)))
        XCTAssertEqual(t.sections[.full]?["sos"], .sound(FeedbackdSound(effect: "bell", mediaRole: .emergency)))
        XCTAssertEqual(t.sections[.full]?["odd"], .sound(FeedbackdSound(effect: "bell", mediaRole: .event)))
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertEqual(problems.first?.file, "t.json")
        XCTAssertEqual(problems.first?.key, "profiles[0].feedbacks[2].media-role")
        XCTAssertTrue(problems.first?.message.contains("Karaoke") ?? false, "\(problems)")
    }

    func testBrokenFilesAreErrorsNeverCrashes() {
        for text in ["", "{", "[]", "\"x\"", "{\"profiles\": 3}", String(repeating: "[", count: 100_000), "{\"name\": true, \"profiles\": [null]}"] {
            let (theme, problems) = parse(text)
            XCTAssertTrue(theme != nil || problems.containsErrors, "\(text.prefix(20)): \(problems)")
        }
        let (theme, problems) = parse(String(repeating: "[", count: 100_000))
        XCTAssertNil(theme)
        XCTAssertTrue(problems[0].message.contains("nested"), "\(problems)")
    }

    /// What a value is and where the file breaks is said as the file wrote it.
    func testMessagesShowValuesAsWrittenAndSyntaxErrorsTheirLine() throws {
        let (_, problems) = parse("""
            {"profiles": [{"name": "full", "feedbacks": [
                {"event-name": "a", "type": "VibraRumble", "count": true, "duration": 2.5, "magnitude": -3},
                {"event-name": "b", "type": 7}]}]}
            """)
        let messages = problems.map(\.message)
        XCTAssertTrue(messages.contains { $0.hasPrefix("true is not a whole number") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.hasPrefix("2.5 is not a whole number") }, "\(messages)")
        XCTAssertTrue(messages.contains { $0.hasPrefix("-3 is not a magnitude") }, "a whole number without .0: \(messages)")
        XCTAssertTrue(messages.contains { $0 == "expected a string, found a number" }, "\(messages)")

        let (theme, broken) = parse("{\n\"name\": \"t\",\n\"profiles\": [,]}")
        XCTAssertNil(theme)
        XCTAssertTrue(broken.first?.message.hasPrefix("not valid JSON (line 3: ") ?? false, "\(broken)")
        XCTAssertEqual(FeedbackdFeedback.periodic(FeedbackdPeriodic(durationMs: 10, magnitude: 0.5, fadeInMs: 0, fadeInLevel: 0.126)).summary,
                       "periodic 10 ms at 0.50, fade-in 0 ms from 0.13")
    }

    func testOlderThemesSixteenBitMagnitudesAreFractions() throws {
        let (theme, _) = parse(#"{"profiles": [{"name": "quiet", "feedbacks": [{"event-name": "a", "type": "VibraPeriodic", "magnitude": 32767, "duration": 100}]}]}"#)
        guard case .periodic(let p)? = theme?.sections[.quiet]?["a"] else { return XCTFail("not parsed") }
        XCTAssertEqual(p.magnitude, 0.5, accuracy: 0.001)
    }

    // MARK: Lookup, chains, sections

    func testNameInTheXDGDirectoriesParentChainsAndDummy() throws {
        try install("default", """
            {"name": "default", "profiles": [
              {"name": "full", "feedbacks": [{"event-name": "m", "type": "Sound", "effect": "notification"},
                                             {"event-name": "gone", "type": "Sound", "effect": "tap"}]},
              {"name": "quiet", "feedbacks": [{"event-name": "m", "type": "VibraRumble", "duration": 150}]}]}
            """)
        try install("custom", """
            {"name": "custom", "parent-name": "default", "profiles": [
              {"name": "full", "feedbacks": [{"event-name": "m", "type": "Sound", "effect": "bell"},
                                             {"event-name": "gone", "type": "Dummy"},
                                             {"event-name": "new", "type": "Sound", "effect": "camera-shutter"}]}]}
            """, config: true)
        let (theme, problems) = FeedbackdTheme.load(name: "custom", environment: environment)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(theme.files, [dir + "/config/feedbackd/themes/custom.json", dir + "/data/feedbackd/themes/default.json", "(built-in)"])
        // The child's sound replaces the parent's; the parent's vibration stays.
        let full = try XCTUnwrap(theme.feedbacks(for: "m", level: .full))
        XCTAssertEqual(full.map(\.section), [.full, .quiet])
        XCTAssertEqual(full[0].feedback, .sound(FeedbackdSound(effect: "bell", mediaRole: .event)))
        XCTAssertEqual(theme.feedbacks(for: "m", level: .quiet)?.map(\.section), [.quiet])
        XCTAssertEqual(theme.feedbacks(for: "m", level: .silent)?.count, 0)
        XCTAssertEqual(theme.feedbacks(for: "gone", level: .full)?.map(\.feedback), [.dummy(durationMs: 0)])
        XCTAssertNotNil(theme.feedbacks(for: "new", level: .full))
        XCTAssertNil(theme.feedbacks(for: "unknown", level: .full), "an event no theme knows goes to sysound's names")
        // The built-in keyboard events are felt even in silent.
        XCTAssertEqual(theme.feedbacks(for: "key-pressed", level: .silent)?.count, 1)
    }

    func testFeedbackThemeVariableAndParentCycles() throws {
        try install("a", #"{"name": "a", "parent-name": "b", "profiles": []}"#)
        try install("b", #"{"name": "b", "parent-name": "a", "profiles": [{"name": "full", "feedbacks": [{"event-name": "x", "type": "Sound", "effect": "tap"}]}]}"#)
        let (theme, problems) = FeedbackdTheme.load(name: "a", environment: environment)
        XCTAssertTrue(theme.knows("x"))
        XCTAssertEqual(problems.map(\.kind), [.aliasCycle], "\(problems)")
        let file = dir + "/elsewhere.json"
        try write(#"{"name": "elsewhere", "parent-name": "b", "profiles": []}"#, to: file)
        var env = environment
        env["FEEDBACK_THEME"] = file
        let (forced, _) = FeedbackdTheme.load(name: "a", environment: env)
        XCTAssertEqual(forced.files.first, file)
        XCTAssertTrue(forced.knows("x"))
    }

    func testDeviceThemeByCompatibleMostSpecificFirstElseDefault() throws {
        try install("default", #"{"name": "default", "profiles": []}"#)
        try install("pine64,pinephone", #"{"name": "pp", "parent-name": "default", "profiles": []}"#)
        var env = environment
        env[MachineIdentity.compatibleVariable] = "pine64,pinephone-1.2 pine64,pinephone allwinner,sun50i-a64"
        XCTAssertEqual(FeedbackdTheme.load(name: "$device", environment: env).0.files.first, dir + "/data/feedbackd/themes/pine64,pinephone.json")
        env[MachineIdentity.compatibleVariable] = "acme,other"
        XCTAssertEqual(FeedbackdTheme.load(name: "$device", environment: env).0.files.first, dir + "/data/feedbackd/themes/default.json")
        // Reserved names find no file; a missing theme is a warning, and sysound's names answer.
        let (reserved, problems) = FeedbackdTheme.load(name: "__x", environment: env)
        XCTAssertEqual(reserved.files, ["(built-in)"])
        XCTAssertEqual(problems.map(\.kind), [.missingFile])
    }

    /// feedbackd's `*-missed-*` events light the LED alone: the theme's
    /// entry, with feedbackd's defaults (priority 0, 100 %).
    func testLedOnlyEventsAreTheThemes() throws {
        try install("default", ##"{"profiles": [{"name": "silent", "feedbacks": [{"event-name": "missed", "type": "Led", "color": "blue"}, {"event-name": "call", "type": "Led", "color": "#00FFFF", "frequency": 3000, "priority": 3, "max-brightness": 40}, {"event-name": "odd", "type": "Led", "color": "purple"}]}]}"##)
        let (theme, problems) = FeedbackdTheme.load(name: "default", environment: environment)
        XCTAssertEqual(theme.feedbacks(for: "missed", level: .full)?.map(\.feedback), [.led(FeedbackdLed(color: "blue"))])
        XCTAssertEqual(
            theme.feedbacks(for: "call", level: .silent)?.map(\.feedback),
            [.led(FeedbackdLed(color: "#00FFFF", frequency: 3000, priority: 3, maxBrightness: 40))])
        XCTAssertNil(theme.feedbacks(for: "odd", level: .full), "an unknown colour skips the entry")
        XCTAssertTrue(problems.contains { $0.key?.hasSuffix(".color") == true && $0.message.contains("purple") })
    }

    /// Debian's own theme (package feedbackd): every event resolves through
    /// sysound's theme, or `sysound check` names it.
    func testDebiansDefaultThemeEveryEventResolvesOrIsReported() throws {
        let path = "/usr/share/feedbackd/themes/default.json"
        guard FileManager.default.fileExists(atPath: path) else { throw XCTSkip("package feedbackd is not installed") }
        var config = SysoundConfiguration(dataDirectory: packageRoot)
        config.xdg.fallback = false
        let sounds = try Theme.load(configuration: config, environment: [:])
        let (theme, problems) = FeedbackdTheme.load(name: "default", environment: ["FEEDBACK_THEME": path])
        XCTAssertEqual(problems, [])
        XCTAssertGreaterThanOrEqual(theme.events.count, 20)
        let reported = FeedbackdCheck.check(themeFile: path, against: sounds, environment: [:])
        XCTAssertFalse(reported.containsErrors, "\(reported)")
        for event in theme.events {
            for level in FeedbackProfile.allCases {
                for (_, feedback) in theme.feedbacks(for: event, level: level) ?? [] {
                    guard case .sound(let sound) = feedback else { continue }
                    if (try? sounds.resolve(sound.effect)) == nil {
                        XCTAssertTrue(reported.contains { $0.message.contains("\"\(event)\"") }, "\(event) → \(sound.effect) neither resolves nor is reported")
                    }
                }
            }
        }
        // The listing names every event, and the ones only sysound knows.
        let rows = FeedbackdCheck.rows(theme, theme: sounds)
        XCTAssertEqual(Set(rows.map(\.event)), Set(theme.events + FeedbackdEvents.defaultTheme))
    }
}
