import Foundation
import SysoundConfig
import SysoundCore
import XCTest

final class ConfigurationTests: XCTestCase {
    let shipped = packageRoot + "/config/sysound.toml"

    func testShippedConfigIsCleanAndEqualsTheBuiltInDefaults() throws {
        let (config, diagnostics) = try SysoundConfiguration.read(file: shipped, search: isolatedSearch())
        XCTAssertEqual(diagnostics, [])
        var defaults = SysoundConfiguration(dataDirectory: packageRoot)
        defaults.file = shipped
        XCTAssertEqual(config, defaults, "config/sysound.toml and the built-in defaults have drifted apart")
        XCTAssertEqual(config.audio.voices, 32)
        XCTAssertEqual(config.audio.duckDecibels, -12)
        XCTAssertEqual(config.audio.duckGain, 0.2512, accuracy: 0.001)
        XCTAssertEqual(config.audio.latencyMs, 8.0, accuracy: 0.01, "96 × 4 at 48 kHz (docs/latency.md, \"Why 96 × 4\")")
        XCTAssertEqual(config.themePaths, [packageRoot + "/Sounds"])
        XCTAssertEqual(config.policy.defaultAlertHaptic, "alert")
        for preset in ["light", "medium", "heavy", "soft", "rigid", "selection", "success", "warning", "error", "tap", "alarm", "alert"] {
            XCTAssertNotNil(config.haptics.presets[preset], preset)
        }
    }

    func testCheckPassesOnTheShippedConfigAndTheme() {
        let diagnostics = SysoundCheck.check(configPath: shipped, search: isolatedSearch())
        XCTAssertFalse(diagnostics.containsErrors, diagnostics.map(\.description).joined(separator: "\n"))
    }

    func testSearchOrderPrefersOverrideThenXDGConfigHomeThenShipped() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let user = dir + "/sysound/sysound.toml"
        try write("[audio]\nvoices = 8\n", to: user)
        let search = isolatedSearch(["XDG_CONFIG_HOME": dir])
        XCTAssertEqual(try search.configurationFile(override: nil), user)
        XCTAssertEqual(try SysoundConfiguration.load(search: search).audio.voices, 8)
        let other = dir + "/other.toml"
        try write("[audio]\nvoices = 4\n", to: other)
        XCTAssertEqual(try SysoundConfiguration.load(path: other, search: search).audio.voices, 4)
        // Neither given nor in XDG_CONFIG_HOME: /etc, then the shipped default.
        let fallback = try isolatedSearch(["XDG_CONFIG_HOME": dir + "/empty"]).configurationFile(override: nil)
        XCTAssertTrue(fallback == "/etc/sysound/sysound.toml" || fallback == shipped, fallback)
        XCTAssertEqual(
            isolatedSearch(["XDG_CONFIG_HOME": dir]).configurationCandidates(dataDirectory: packageRoot),
            [user, "/etc/sysound/sysound.toml", shipped])
    }

    func testMissingOverrideIsAnErrorNotAFallback() {
        XCTAssertThrowsError(try SysoundConfiguration.load(path: "/nonexistent/sysound.toml", search: isolatedSearch())) {
            XCTAssertEqual($0 as? ConfigurationError, .notFound(path: "/nonexistent/sysound.toml"))
            XCTAssertTrue("\($0)".contains("/nonexistent/sysound.toml"))
        }
    }

    func testDataDirectoryIsFoundFromTheExecutableInASourceTree() throws {
        let search = ConfigurationSearch(environment: [:], executablePath: packageRoot + "/.build/debug/sysound")
        XCTAssertEqual(try search.dataDirectory(), packageRoot)
        let bad = ConfigurationSearch(environment: ["SYSOUND_DATA_DIR": "/nonexistent"], executablePath: nil)
        XCTAssertThrowsError(try bad.dataDirectory()) {
            XCTAssertTrue("\($0)".contains("SYSOUND_DATA_DIR"), "\($0)")
        }
    }

    /// `make install PREFIX=P`: the engine in P/libexec/sysound finds P/share/sysound
    /// before any fallback, and P/etc/sysound/sysound.toml before /etc's.
    func testInstalledPrefixIsFoundFromTheExecutable() throws {
        let prefix = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let data = prefix + "/share/sysound"
        try FileManager.default.createDirectory(atPath: data + "/config", withIntermediateDirectories: true)
        try write("", to: data + "/config/sysound.toml")
        for exe in [prefix + "/libexec/sysound/sysound-engine", prefix + "/bin/sysound"] {
            let search = ConfigurationSearch(environment: ["HOME": "/nonexistent"], executablePath: exe)
            XCTAssertEqual(try search.dataDirectory(), data)
            // Never the source tree it was built from, also when the data is missing.
            XCTAssertEqual(search.dataDirectoryCandidates(), [data, "/usr/local/share/sysound", "/usr/share/sysound"])
            XCTAssertEqual(
                search.configurationCandidates(dataDirectory: data),
                ["/nonexistent/.config/sysound/sysound.toml", prefix + "/etc/sysound/sysound.toml",
                 "/etc/sysound/sysound.toml", data + "/config/sysound.toml"])
        }
        let usr = ConfigurationSearch(environment: ["HOME": "/h"], executablePath: "/usr/libexec/sysound/sysound-engine")
        XCTAssertEqual(
            usr.configurationCandidates(dataDirectory: "/usr/share/sysound"),
            ["/h/.config/sysound/sysound.toml", "/etc/sysound/sysound.toml", "/usr/share/sysound/config/sysound.toml"])
    }

    func testLoadRefusesAFileWithErrorsAndListsThemAll() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/bad.toml"
        try write("[audio]\nvoices = 0\nperiods = \"two\"\n", to: file)
        XCTAssertThrowsError(try SysoundConfiguration.load(path: file, search: isolatedSearch())) { error in
            guard case .invalid(let f, let diagnostics)? = error as? ConfigurationError else { return XCTFail("\(error)") }
            XCTAssertEqual(f, file)
            XCTAssertEqual(diagnostics.map(\.key), ["audio.voices", "audio.periods"])
            XCTAssertTrue("\(error)".contains("\(file):2: error: audio.voices: 0 is out of range"), "\(error)")
        }
    }

    func testRealtimePriorityIsValidatedAndZeroTurnsItOff() {
        let (off, clean) = SysoundConfiguration.parse(text: "[audio]\nrealtime_priority = 0\n", file: "t.toml", dataDirectory: "/data")
        XCTAssertEqual(clean, [])
        XCTAssertEqual(off.audio.realtimePriority, 0)
        XCTAssertEqual(SysoundConfiguration(dataDirectory: "/data").audio.realtimePriority, 4, "the default")
        let (bad, diagnostics) = SysoundConfiguration.parse(text: "[audio]\nrealtime_priority = 100\n", file: "t.toml", dataDirectory: "/data")
        XCTAssertEqual(bad.audio.realtimePriority, 4, "a bad value keeps the default")
        XCTAssertEqual(diagnostics.map(\.key), ["audio.realtime_priority"])
        XCTAssertTrue("\(diagnostics)".contains("100 is out of range; expected 0 to 99 (0: off)"), "\(diagnostics)")
    }

    func testRelativeAndHomeThemePathsAndConfigAliases() {
        let (config, diagnostics) = SysoundConfiguration.parse(
            text: "[theme]\npaths = [\"~/mine\", \"Sounds\", \"/abs/theme\"]\n[aliases]\nding = \"bell\"\n",
            file: "/home/u/.config/sysound/sysound.toml", dataDirectory: "/data", environment: ["HOME": "/home/u"])
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(config.themePaths, ["/home/u/mine", "/home/u/.config/sysound/Sounds", "/abs/theme"], "relative to the file that names them")
        XCTAssertEqual(
            SysoundConfiguration.parse(text: "[theme]\npaths = [\"../t\"]\n", file: "/etc/sysound/sysound.toml", dataDirectory: "/data").0.themePaths,
            ["/etc/t"])
        XCTAssertEqual(SysoundConfiguration(dataDirectory: "/data").themePaths, ["/data/Sounds"], "unset: the shipped theme")
        XCTAssertEqual(config.aliases, ["ding": "bell"])
    }

    func testDBusSectionAndPerAppLevels() {
        let (config, diagnostics) = SysoundConfiguration.parse(
            text: """
                [dbus]
                enabled = false
                replace = true
                allow_important = ["org.gnome.clocks"]
                [apps."org.example.Chat"]
                profile = "quiet"
                gain = 0.5
                [apps.soft]
                gain = 0.25
                """,
            file: "t.toml", dataDirectory: "/data", environment: [:])
        XCTAssertEqual(diagnostics, [])
        XCTAssertFalse(config.dbus.enabled)
        XCTAssertTrue(config.dbus.replace)
        XCTAssertEqual(config.policy.allowImportant, ["org.gnome.clocks"])
        XCTAssertEqual(config.policy.apps["org.example.Chat"], AppLevel(profile: .quiet, gain: 0.5))
        XCTAssertEqual(config.policy.apps["soft"], AppLevel(profile: .full, gain: 0.25))

        let (_, problems) = SysoundConfiguration.parse(
            text: "[dbus]\nenabled = \"yes\"\nallow = []\n[apps.x]\nprofile = \"loud\"\ngain = 2\nvolume = 1\n",
            file: "t.toml", dataDirectory: "/data", environment: [:])
        XCTAssertEqual(problems.map(\.key), ["dbus.enabled", "dbus.allow", "apps.x.profile", "apps.x.gain", "apps.x.volume"])
        XCTAssertTrue(problems[2].message.contains("full, quiet, silent"), problems[2].message)
    }
}
