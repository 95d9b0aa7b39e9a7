import Foundation
import SysoundConfig
import XCTest

/// `sysound check` on broken configurations and themes: each reports the
/// exact problem, with file, line, key and what is expected.
final class CheckTests: XCTestCase {
    struct Case {
        var text: String
        var kind: Diagnostic.Kind
        var key: String?
        var line: Int?
        var says: String
    }

    let configCases: [Case] = [
        Case(text: "[audio\nvoices = 3\n", kind: .syntax, key: nil, line: 1, says: "valid TOML"),
        Case(text: "[audio]\nvoice = 3\n", kind: .unknownKey, key: "audio.voice", line: 2, says: "did you mean \"voices\""),
        Case(text: "[audoi]\nvoices = 3\n", kind: .unknownKey, key: "audoi", line: 1, says: "did you mean \"audio\""),
        Case(text: "[audio]\nvoices = \"32\"\n", kind: .wrongType, key: "audio.voices", line: 2, says: "expected a whole number from 1 to 256, found the string \"32\""),
        Case(text: "# c\n[audio]\nperiods = 1\n", kind: .outOfRange, key: "audio.periods", line: 3, says: "expected 2 to 16"),
        Case(text: "[categories]\nalert = 1.5\n", kind: .outOfRange, key: "categories.alert", line: 2, says: "expected 0.0 to 1.0"),
        Case(text: "[xdg]\nfallback = \"yes\"\n", kind: .wrongType, key: "xdg.fallback", line: 2, says: "true or false"),
        Case(text: "[haptics.presets]\nbuzz = \"2:10\"\n", kind: .invalidValue, key: "haptics.presets.buzz", line: 2, says: "magnitude outside 0–1"),
        Case(text: "[haptics]\ndevices = [\"all\", \"gpio-vibrator\"]\n", kind: .invalidValue, key: "haptics.devices", line: 2, says: "\"all\" already takes every device; give it alone"),
        Case(text: "[haptics]\ndevices = [\"/tmp/vib\"]\n", kind: .invalidValue, key: "haptics.devices", line: 2, says: "\"/tmp/vib\": a path must name a device node under /dev"),
        Case(text: "[haptics]\nprofile = \"pinefone\"\n", kind: .unknownReference, key: "haptics.profile", line: 2, says: "unknown haptic profile \"pinefone\"; known profiles: pine64-pinephone"),
        Case(text: "[policy]\nalert_haptic = \"alrt\"\n", kind: .unknownReference, key: "policy.alert_haptic", line: 2, says: "did you mean \"alert\""),
        Case(text: "[theme]\npaths = [\"/nonexistent/theme\"]\n", kind: .missingFile, key: "theme.paths", line: 2, says: "/nonexistent/theme does not exist"),
        Case(text: "[aliases]\nping = \"pong\"\npong = \"ping\"\n", kind: .aliasCycle, key: "aliases.ping", line: 2, says: "\"ping\" → \"pong\" → \"ping\""),
        Case(text: "[aliases]\nding = \"bel\"\n", kind: .unknownReference, key: "aliases.ding", line: 2, says: "did you mean \"bell\""),
        Case(text: "[aliases]\ntap = \"click\"\n", kind: .duplicateName, key: "aliases.tap", line: 2, says: "already the name of a theme sound"),
        Case(text: "[state]\ndirectory = \"run/sysound\"\n", kind: .invalidValue, key: "state.directory", line: 2, says: "absolute path"),
        Case(text: "[audio]\nduck_db = 6.0\n", kind: .outOfRange, key: "audio.duck_db", line: 2, says: "-60.0 to 0.0 dB"),
    ]

    func testEachBrokenConfigReportsItsExactProblem() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (i, c) in configCases.enumerated() {
            let file = dir + "/case\(i).toml"
            try write(c.text, to: file)
            let diagnostics = SysoundCheck.check(configPath: file, search: isolatedSearch())
            let errors = diagnostics.filter { $0.severity == .error }
            XCTAssertEqual(errors.count, 1, "case \(i): \(errors.map(\.description))")
            guard let d = errors.first else { continue }
            XCTAssertEqual(d.kind, c.kind, "case \(i): \(d)")
            XCTAssertEqual(d.file, file, "case \(i)")
            XCTAssertEqual(d.key, c.key, "case \(i): \(d)")
            XCTAssertEqual(d.line, c.line, "case \(i): \(d)")
            XCTAssertTrue(d.description.contains(c.says), "case \(i): \(d) does not say \(c.says)")
        }
    }

    func testBrokenThemeIndexReportsEveryProblem() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let theme = dir + "/theme"
        try write("not audio at all", to: theme + "/garbage.wav")
        try FileManager.default.copyItem(atPath: packageRoot + "/Sounds/tap.wav", toPath: theme + "/ok.wav")
        try write("""
            [sounds.ok]
            file = "ok.wav"
            aliases = ["same", "same"]
            [sounds.nofile]
            gain = 0.5
            [sounds.gone]
            file = "gone.wav"
            [sounds.garbage]
            file = "garbage.wav"
            [sounds.odd]
            file = "ok.wav"
            category = "alrt"
            haptic = "buzz"
            volume = 1
            role = "karaoke"
            [aliases]
            ok = "odd"
            """, to: theme + "/index.toml")
        let config = dir + "/sysound.toml"
        try write("[theme]\npaths = [\"\(theme)\"]\n", to: config)
        let found = SysoundCheck.check(configPath: config, search: isolatedSearch())
        let index = theme + "/index.toml"
        let summary = found.map { "\($0.kind.rawValue) \($0.key ?? "-") \($0.line.map(String.init) ?? "-")" }
        XCTAssertEqual(summary, [
            "unknown-reference - -",  // feedbackd's events, none of which this theme names
            "duplicate-name sounds.ok.aliases 3",
            "missing-key sounds.nofile.file 4",
            "missing-file sounds.gone.file 7",
            "bad-sound-file sounds.garbage.file 9",
            "invalid-value sounds.odd.category 12",
            "unknown-reference sounds.odd.haptic 13",
            "unknown-key sounds.odd.volume 14",
            "invalid-value sounds.odd.role 15",
            "duplicate-name aliases.ok 17",
        ], found.map(\.description).joined(separator: "\n"))
        XCTAssertTrue(found.allSatisfy { $0.file == index })
        XCTAssertTrue(found[5].message.contains("did you mean \"alert\""), found[5].message)
        XCTAssertEqual(found[0].severity, .warning)
        XCTAssertTrue(found[0].message.contains("button-pressed, button-released"), found[0].message)
    }

    func testACleanCheckHasNoErrorsAndAMissingFileIsOne() throws {
        let missing = SysoundCheck.check(configPath: "/nonexistent.toml", search: isolatedSearch())
        XCTAssertEqual(missing.map(\.kind), [.missingFile])
        XCTAssertTrue(missing.containsErrors)
    }
}
