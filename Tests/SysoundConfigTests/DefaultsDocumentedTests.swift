import Foundation
import SysoundConfig
import SysoundCore
import XCTest

/// Defaults are written once, in the settings types; the shipped file and the
/// man page only document them. These tests keep the documents honest (the
/// shipped file's values: ConfigurationTests, which parses it).
final class DefaultsDocumentedTests: XCTestCase {
    private let defaults = SysoundConfiguration(dataDirectory: packageRoot)

    /// The lines `.It Cm KEY No = VALUE` of one `.Ss [TABLE]` section of sysound.toml(5).
    private func manPageValues(table: String) throws -> [String: String] {
        let page = try String(contentsOfFile: packageRoot + "/config/sysound.toml.5", encoding: .utf8)
        var values: [String: String] = [:]
        var inTable = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix(".Ss ") { inTable = line == ".Ss [\(table)]" }
            guard inTable, line.hasPrefix(".It Cm "), let eq = line.range(of: " No = ") else { continue }
            let key = String(line[line.index(line.startIndex, offsetBy: 7)..<eq.lowerBound])
            values[key] = String(line[eq.upperBound...])
        }
        return values
    }

    /// A value as the man page writes it: strings as `Qq text`.
    private func mdoc(_ toml: String) -> String {
        toml.hasPrefix("\"") ? "Qq " + toml.dropFirst().dropLast() : toml
    }

    func testTheManPageStatesEachScalarDefault() throws {
        for (table, keys) in ConfigurationKeys.all {
            let documented = try manPageValues(table: table)
            for key in keys {
                XCTAssertEqual(documented[key.name], mdoc(key.text(defaults)), "sysound.toml(5) [\(table)] \(key.name)")
            }
        }
    }

    /// The presets are documented commented out, so that a copy of the file
    /// does not freeze them; each line states the built-in pattern.
    func testTheShippedFileDocumentsEveryBuiltInPresetCommentedOut() throws {
        let text = try String(contentsOfFile: packageRoot + "/config/sysound.toml", encoding: .utf8)
        let (config, diagnostics) = try SysoundConfiguration.read(file: packageRoot + "/config/sysound.toml", search: isolatedSearch())
        XCTAssertEqual(diagnostics, [])
        XCTAssertEqual(config.haptics.presets, HapticPresets.defaults, "the shipped file sets no preset")
        for preset in BuiltInHaptic.allCases {
            XCTAssertTrue(
                text.contains("\n# \(preset.rawValue) = \"\(preset.pattern)\"\n"),
                "config/sysound.toml documents [haptics.presets] \(preset.rawValue) = \"\(preset.pattern)\"")
        }
    }

    func testEachKeyOfATableIsReadThroughItsEntry() {
        // A value other than the default, for every scalar [audio] key, lands in the settings.
        let text = "[audio]\nvoices = 7\nfrequency = 44100\nperiod_frames = 128\nperiods = 3\nidle_pause_ms = 0\n"
            + "realtime_priority = 0\nduck_db = -6\nduck_ramp_ms = 10\nmax_clip_seconds = 5\nmax_preload_bytes = 2097152\n"
            + "adhoc_cache_files = 2\noutput = \"openal\"\n"
        let (config, diagnostics) = SysoundConfiguration.parse(text: text, file: "t.toml", dataDirectory: "/data")
        XCTAssertEqual(diagnostics, [])
        var expected = AudioSettings()
        expected.voices = 7
        expected.sampleRate = 44_100
        expected.periodFrames = 128
        expected.periods = 3
        expected.idlePauseMilliseconds = 0
        expected.realtimePriority = 0
        expected.duckDecibels = -6
        expected.rampMilliseconds = 10
        expected.maxClipSeconds = 5
        expected.maxPreloadBytes = 2 << 20
        expected.maxCachedFiles = 2
        expected.backend = .openal
        XCTAssertEqual(config.audio, expected)
    }
}
