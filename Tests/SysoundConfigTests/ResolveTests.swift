import Foundation
import SysoundConfig
import SysoundCore
import XCTest

/// Name resolution: the theme, aliases, `-part` dropping, and the XDG fallback.
final class ResolveTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try makeTemporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func shippedTheme(xdg: XDGSoundThemes? = nil, aliases: [String: String] = [:]) throws -> Theme {
        var config = SysoundConfiguration(dataDirectory: packageRoot)
        config.xdg.fallback = false
        config.aliases = aliases
        var theme = try Theme.load(configuration: config, environment: [:])
        theme.xdg = xdg
        return theme
    }

    /// A tree of two base directories: the user's (with `mytheme`'s index) and
    /// a system one (more of `mytheme`, its parent `parent`, and `freedesktop`).
    func buildXDGTree() throws -> (XDGSoundThemes, user: String, system: String) {
        let user = dir + "/home/sounds", system = dir + "/usr/share/sounds"
        try write("""
            [Sound Theme]
            Name=Mine
            Inherits=parent
            Directories=stereo,5.1

            [stereo]
            OutputProfile=stereo

            [5.1]
            OutputProfile=5.1
            """, to: user + "/mytheme/index.theme")
        try write("x", to: user + "/mytheme/stereo/only-mine.oga")
        try write("x", to: user + "/mytheme/5.1/surround.wav")
        try write("x", to: user + "/mytheme/stereo/de/greeting.oga")
        try write("x", to: user + "/mytheme/stereo/greeting.oga")
        try write("", to: user + "/mytheme/stereo/muted.disabled")
        try write("x", to: system + "/mytheme/stereo/spread.ogg")
        try write("[Sound Theme]\nName=Parent\nDirectories=stereo\n[stereo]\nOutputProfile=stereo\n", to: system + "/parent/index.theme")
        try write("x", to: system + "/parent/stereo/from-parent.wav")
        try write("[Sound Theme]\nName=Default\nDirectories=stereo\n[stereo]\nOutputProfile=stereo\n", to: system + "/freedesktop/index.theme")
        try write("x", to: system + "/freedesktop/stereo/from-fd.oga")
        try write("x", to: system + "/freedesktop/stereo/muted.oga")
        try write("x", to: system + "/freedesktop/stereo/dialog-foo.oga")
        try write("x", to: system + "/freedesktop/stereo/tap.oga")
        try write("x", to: system + "/unthemed.wav")
        let env = ["XDG_DATA_HOME": dir + "/home", "XDG_DATA_DIRS": dir + "/usr/share", "LANG": "C"]
        return (XDGSoundThemes(environment: env, theme: "mytheme"), user, system)
    }

    func testDirectNameAndAlias() throws {
        let theme = try shippedTheme()
        let tap = try theme.resolve("tap")
        XCTAssertEqual(tap.entry.name, "tap")
        XCTAssertEqual(tap.source, .theme(matched: "tap"))
        XCTAssertEqual(tap.path, packageRoot + "/Sounds/tap.wav")
        let pressed = try theme.resolve("button-pressed")
        XCTAssertEqual(pressed.entry.name, "tap")
        XCTAssertEqual(pressed.source, .alias(matched: "button-pressed"))
        XCTAssertEqual(try theme.resolve("notify").entry.name, "notification", "[aliases] of the index")
        XCTAssertTrue(theme.entry(named: "tap")!.aliases.contains("button-pressed"))
    }

    func testConfigAliasChainsThroughAnotherAlias() throws {
        let theme = try shippedTheme(aliases: ["my-done": "complete", "my-done-2": "my-done"])
        XCTAssertEqual(try theme.resolve("my-done-2").entry.name, "success")
    }

    func testDroppingTheLastPartFindsTheGeneralSound() throws {
        let theme = try shippedTheme()
        let r = try theme.resolve("dialog-warning-auth")
        XCTAssertEqual(r.entry.name, "warning")
        XCTAssertEqual(r.source, .alias(matched: "dialog-warning"))
        XCTAssertEqual(try theme.resolve("tap-extra-long").source, .theme(matched: "tap"))
        XCTAssertEqual(XDGSoundThemes.nameVariants("a-b-c"), ["a-b-c", "a-b", "a"])
    }

    func testUnknownNameListsCloseMatches() throws {
        let theme = try shippedTheme()
        XCTAssertThrowsError(try theme.resolve("notifcation")) { error in
            guard case .unknown(let name, let suggestions)? = error as? ResolveError else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "notifcation")
            XCTAssertEqual(suggestions.first, "notification")
            XCTAssertTrue("\(error)".contains("did you mean \"notification\""), "\(error)")
            XCTAssertTrue("\(error)".contains("sysound list"))
        }
        XCTAssertThrowsError(try theme.resolve("../etc/passwd")) {
            guard case .invalidName? = $0 as? ResolveError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try theme.resolve(""))
    }

    func testXDGLookupFollowsTheSpec() throws {
        let (xdg, user, system) = try buildXDGTree()
        XCTAssertEqual(xdg.lookup("only-mine"), .file(path: user + "/mytheme/stereo/only-mine.oga", theme: "mytheme"))
        XCTAssertEqual(xdg.lookup("spread"), .file(path: system + "/mytheme/stereo/spread.ogg", theme: "mytheme"), "a theme spread over base directories")
        XCTAssertEqual(xdg.lookup("from-parent"), .file(path: system + "/parent/stereo/from-parent.wav", theme: "parent"), "Inherits=")
        XCTAssertEqual(xdg.lookup("from-fd"), .file(path: system + "/freedesktop/stereo/from-fd.oga", theme: "freedesktop"), "freedesktop last")
        XCTAssertEqual(xdg.lookup("muted"), .disabled(path: user + "/mytheme/stereo/muted.disabled"), ".disabled stops before freedesktop")
        XCTAssertEqual(xdg.lookup("dialog-foo-bar-baz"), .file(path: system + "/freedesktop/stereo/dialog-foo.oga", theme: "freedesktop"))
        XCTAssertEqual(xdg.lookup("unthemed"), .file(path: system + "/unthemed.wav", theme: nil))
        XCTAssertNil(xdg.lookup("surround"), "5.1 files are not stereo")
        XCTAssertNil(xdg.lookup("nothing-anywhere"))
        var surround = xdg
        surround.profile = "5.1"
        XCTAssertEqual(surround.lookup("surround"), .file(path: user + "/mytheme/5.1/surround.wav", theme: "mytheme"))
        let german = XDGSoundThemes(environment: ["XDG_DATA_HOME": dir + "/home", "XDG_DATA_DIRS": dir + "/usr/share", "LANG": "de_DE.UTF-8"], theme: "mytheme")
        XCTAssertEqual(german.lookup("greeting"), .file(path: user + "/mytheme/stereo/de/greeting.oga", theme: "mytheme"))
        XCTAssertEqual(xdg.lookup("greeting"), .file(path: user + "/mytheme/stereo/greeting.oga", theme: "mytheme"))
    }

    func testThemeFallsBackToXDGOnlyForNamesItLacks() throws {
        let (xdg, user, _) = try buildXDGTree()
        let theme = try shippedTheme(xdg: xdg)
        XCTAssertEqual(try theme.resolve("tap").source, .theme(matched: "tap"), "the theme wins over an XDG file of the same name")
        let mine = try theme.resolve("only-mine")
        XCTAssertEqual(mine.source, .xdg(theme: "mytheme"))
        XCTAssertEqual(mine.path, user + "/mytheme/stereo/only-mine.oga")
        XCTAssertEqual(mine.entry.category, .ambient)
        XCTAssertThrowsError(try theme.resolve("muted")) {
            XCTAssertEqual($0 as? ResolveError, .disabled(name: "muted", marker: user + "/mytheme/stereo/muted.disabled"))
        }
    }

    /// Debian's sound-theme-freedesktop, when installed (apt-get install sound-theme-freedesktop).
    func testInstalledFreedesktopTheme() throws {
        let base = "/usr/share/sounds/freedesktop"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: base + "/index.theme"), "sound-theme-freedesktop is not installed")
        let xdg = XDGSoundThemes(environment: ["HOME": "/nonexistent", "XDG_DATA_DIRS": "/usr/share", "LANG": "C"])
        XCTAssertEqual(xdg.lookup("bell"), .file(path: base + "/stereo/bell.oga", theme: "freedesktop"))
        XCTAssertEqual(xdg.lookup("dialog-warning-auth"), .file(path: base + "/stereo/dialog-warning.oga", theme: "freedesktop"))
        let theme = try shippedTheme(xdg: xdg)
        let login = try theme.resolve("service-login")
        XCTAssertEqual(login.source, .xdg(theme: "freedesktop"))
        XCTAssertEqual(login.path, base + "/stereo/service-login.oga")
        XCTAssertEqual(try theme.resolve("dialog-error").entry.name, "error", "our theme answers freedesktop names first")
        // Every name the package ships resolves to something playable.
        for file in try FileManager.default.contentsOfDirectory(atPath: base + "/stereo") where file.hasSuffix(".oga") {
            XCTAssertNoThrow(try theme.resolve(String(file.dropLast(4))), file)
        }
    }

    func testListingShowsSoundsDurationsAliasesAndPresets() throws {
        let theme = try shippedTheme()
        let listing = ThemeListing(theme: theme, configuration: SysoundConfiguration(dataDirectory: packageRoot))
        let tap = try XCTUnwrap(listing.sounds.first { $0.name == "tap" })
        XCTAssertEqual(tap.durationMs, 36)
        XCTAssertEqual(tap.haptic, "tap")
        XCTAssertTrue(tap.aliases.contains("button-pressed"))
        XCTAssertEqual(listing.sounds.first { $0.name == "ringtone" }?.durationMs, 2000)
        XCTAssertEqual(listing.hapticPresets.first { $0.name == "success" }?.pattern, "0.7:25,0:60,1:35")
        let json = try JSONSerialization.jsonObject(with: Data(listing.json().utf8)) as? [String: Any]
        XCTAssertEqual((json?["sounds"] as? [Any])?.count, theme.entries.count)
        let text = listing.text()
        XCTAssertTrue(text.contains("alarm") && text.contains("(loop)") && text.contains("HAPTIC"), text)
    }
}
