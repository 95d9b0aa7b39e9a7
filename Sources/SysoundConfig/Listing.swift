import FoundationEssentials
import Glibc
import SysoundCore

/// The data of `sysound list`: sounds and haptic presets, for people and as JSON.
package struct ThemeListing: Sendable, Equatable, Codable {
    package struct Sound: Sendable, Equatable, Codable {
        package var name: String
        package var file: String
        /// From the file header; nil when the file cannot be read.
        package var durationMs: Int?
        package var category: String
        package var gain: Double
        package var priority: Int
        package var haptic: String?
        package var loopable: Bool
        package var aliases: [String]
    }

    package struct Preset: Sendable, Equatable, Codable {
        package var name: String
        package var pattern: String
        package var durationMs: Int
    }

    package var sounds: [Sound]
    package var hapticPresets: [Preset]

    /// Lists `theme` (reading each file's header for its duration) and the
    /// configuration's presets, sorted by name.
    package init(theme: Theme, configuration: SysoundConfiguration) {
        sounds = theme.entries.map { e in
            Sound(
                name: e.name, file: e.file,
                // A listing shows what it can: an unreadable file has no length (its problem is `sysound check`'s).
                durationMs: (try? SoundFileInfo.read(path: e.file)).map { Int($0.durationMs.rounded()) },
                category: e.category.rawValue, gain: e.gain, priority: e.priority, haptic: e.haptic,
                loopable: e.loopable, aliases: e.aliases)
        }
        hapticPresets = configuration.haptics.presets.keys.sorted().map {
            let p = configuration.haptics.presets[$0]!
            return Preset(name: $0, pattern: p.description, durationMs: p.durationMs)
        }
    }

    /// Pretty-printed JSON with sorted keys (`sysound list --json`).
    package func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings and numbers cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    /// Aligned columns for people (`sysound list`).
    package func text() -> String {
        var lines: [String] = []
        let width = max(5, sounds.map(\.name.count).max() ?? 0)
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
        lines.append(pad("SOUND", width) + "  " + pad("LENGTH", 8) + pad("CATEGORY", 13) + pad("HAPTIC", 10) + "ALIASES")
        for s in sounds {
            let length = s.durationMs.map { "\($0) ms" } ?? "?"
            let loop = s.loopable ? " (loop)" : ""
            lines.append(pad(s.name, width) + "  " + pad(length, 8) + pad(s.category, 13) + pad(s.haptic ?? "-", 10)
                + (s.aliases.isEmpty ? "-" : s.aliases.joined(separator: ", ")) + loop)
        }
        lines.append("")
        let pwidth = max(6, hapticPresets.map(\.name.count).max() ?? 0)
        lines.append(pad("HAPTIC", pwidth) + "  " + pad("LENGTH", 9) + "PATTERN")
        for p in hapticPresets {
            lines.append(pad(p.name, pwidth) + "  " + pad("\(p.durationMs) ms", 9) + p.pattern)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
