import FoundationEssentials
import Glibc
import SysoundCore

/// Lookup in installed freedesktop sound themes, as the Sound Theme
/// Specification says (and libcanberra does):
///
/// - base directories: `$XDG_DATA_HOME/sounds` (default `~/.local/share/sounds`),
///   then `<dir>/sounds` for each of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`);
/// - a theme is a directory `<base>/<theme>/` in any base directory; its
///   `index.theme` (the first found) lists `Directories=` and, per directory,
///   its `OutputProfile=`, and may name parents in `Inherits=`;
/// - order: output profile (the preferred one, then `stereo`), then locale
///   (`ll_CC@mod`, `ll_CC`, `ll`, `C`, none), then the name with its last
///   `-part` dropped each time, then the theme and recursively its parents;
///   then all of that again in `freedesktop`; last, unthemed `<base>/<name>.<ext>`;
/// - extensions `disabled`, `oga`, `ogg`, `wav`: a `.disabled` file stops the
///   lookup (the theme wants no sound for that name).
package struct XDGSoundThemes: Sendable {
    package enum Result: Sendable, Equatable {
        /// A sound file, and the theme it came from (nil for unthemed).
        case file(path: String, theme: String?)
        /// A `.disabled` marker: play nothing.
        case disabled(path: String)
    }

    /// Directories holding themes, in lookup order (each ends in `/sounds`).
    package var baseDirectories: [String]
    package var theme: String
    package var profile: String
    /// Locale names to try, most specific first (from LC_ALL / LC_MESSAGES / LANG).
    package var locales: [String]

    static let extensions = ["disabled", "oga", "ogg", "wav"]

    package init(baseDirectories: [String], theme: String = "freedesktop", profile: String = "stereo", locales: [String] = []) {
        self.baseDirectories = baseDirectories
        self.theme = theme
        self.profile = profile
        self.locales = locales
    }

    /// The lookup the environment describes.
    package init(environment: [String: String], theme: String = "freedesktop", profile: String = "stereo") {
        var bases: [String] = []
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            bases.append(Paths.join(dataHome, "sounds"))
        } else if let home = environment["HOME"], !home.isEmpty {
            bases.append(Paths.join(home, ".local/share/sounds"))
        }
        let dirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        for dir in dirs.split(separator: ":") where dir.hasPrefix("/") {
            bases.append(Paths.join(String(dir), "sounds"))
        }
        let locale = environment["LC_ALL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["LC_MESSAGES"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["LANG"]
        self.init(baseDirectories: bases, theme: theme, profile: profile, locales: Self.localeVariants(locale))
    }

    /// `de_DE.UTF-8@euro` → `de_DE@euro`, `de_DE`, `de`, then `C`.
    static func localeVariants(_ locale: String?) -> [String] {
        var result: [String] = []
        if var l = locale, !l.isEmpty, l != "C", l != "POSIX" {
            if let dot = l.firstIndex(of: ".") {
                let modifier = l.firstIndex(of: "@").map { String(l[$0...]) } ?? ""
                l = String(l[..<dot]) + modifier
            }
            result.append(l)
            if let at = l.firstIndex(of: "@") { l = String(l[..<at]); result.append(l) }
            if let underscore = l.firstIndex(of: "_") { result.append(String(l[..<underscore])) }
        }
        result.append("C")
        return result
    }

    /// `dialog-warning-auth` → `dialog-warning-auth`, `dialog-warning`, `dialog`.
    package static func nameVariants(_ name: String) -> [String] {
        var variants = [name]
        var current = Substring(name)
        while let dash = current.lastIndex(of: "-"), dash > current.startIndex {
            current = current[..<dash]
            variants.append(String(current))
        }
        return variants
    }

    /// Finds the file for `name`, or nil when no theme has it.
    package func lookup(_ name: String) -> Result? {
        var cache: [String: ThemeIndexFile?] = [:]
        for themeName in theme == "freedesktop" ? ["freedesktop"] : [theme, "freedesktop"] {
            if let found = lookup(name, inTheme: themeName, cache: &cache) { return found }
        }
        for base in baseDirectories {
            for ext in Self.extensions {
                let path = Paths.join(base, "\(name).\(ext)")
                if Paths.isFile(path) { return ext == "disabled" ? .disabled(path: path) : .file(path: path, theme: nil) }
            }
        }
        return nil
    }

    private func lookup(_ name: String, inTheme root: String, cache: inout [String: ThemeIndexFile?]) -> Result? {
        for profile in profile == "stereo" ? ["stereo"] : [profile, "stereo"] {
            for locale in locales.map(Optional.some) + [nil] {
                for variant in Self.nameVariants(name) {
                    var visited: Set<String> = []
                    if let found = search(variant, theme: root, profile: profile, locale: locale, visited: &visited, cache: &cache) {
                        return found
                    }
                }
            }
        }
        return nil
    }

    /// One theme and, depth first, its parents.
    private func search(
        _ name: String, theme: String, profile: String, locale: String?,
        visited: inout Set<String>, cache: inout [String: ThemeIndexFile?]
    ) -> Result? {
        guard visited.insert(theme).inserted else { return nil }
        if cache[theme] == nil { cache[theme] = .some(loadIndex(theme)) }
        guard let index = cache[theme] ?? nil else { return nil }
        for directory in index.directories where index.profiles[directory] == profile {
            for base in baseDirectories {
                var dir = Paths.join(Paths.join(base, theme), directory)
                if let locale { dir = Paths.join(dir, locale) }
                for ext in Self.extensions {
                    let path = Paths.join(dir, "\(name).\(ext)")
                    if Paths.isFile(path) { return ext == "disabled" ? .disabled(path: path) : .file(path: path, theme: theme) }
                }
            }
        }
        for parent in index.inherits where parent != "freedesktop" {
            if let found = search(name, theme: parent, profile: profile, locale: locale, visited: &visited, cache: &cache) {
                return found
            }
        }
        return nil
    }

    /// The first `index.theme` of `theme` in the base directories.
    private func loadIndex(_ theme: String) -> ThemeIndexFile? {
        guard !theme.isEmpty, !theme.contains("/" as Character), theme != ".", theme != ".." else { return nil }
        for base in baseDirectories {
            let path = Paths.join(Paths.join(base, theme), "index.theme")
            // An unreadable index is no theme there: the next base directory is looked at, as the specification says.
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return ThemeIndexFile(text: text) }
        }
        return nil
    }
}

/// The parts of an `index.theme` (desktop-entry style ini) the lookup needs.
struct ThemeIndexFile: Sendable {
    var directories: [String] = []
    var inherits: [String] = []
    /// Directory → its OutputProfile.
    var profiles: [String: String] = [:]

    init(text: String) {
        var section = ""
        var sections: [String: [String: String]] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
            } else if let eq = line.firstIndex(of: "=") {
                let key = line[..<eq].trimmingWhitespace()
                let value = line[line.index(after: eq)...].trimmingWhitespace()
                sections[section, default: [:]][key] = value
            }
        }
        // Lists are comma-separated in the spec; its own example uses spaces.
        func list(_ text: String?) -> [String] {
            (text ?? "").split { $0 == "," || $0 == " " }.map(String.init)
        }
        let head = sections["Sound Theme"] ?? [:]
        directories = list(head["Directories"])
        inherits = list(head["Inherits"])
        for directory in directories {
            profiles[directory] = sections[directory]?["OutputProfile"] ?? "stereo"
        }
    }
}
