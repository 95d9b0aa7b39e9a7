import FoundationEssentials
import Glibc
import SysoundCore

/// How a requested name was found.
package enum ResolutionSource: Sendable, Equatable {
    /// A sound of the theme, by its name or (after dropping `-parts`) by a shorter one.
    case theme(matched: String)
    /// An alias (freedesktop name, `[aliases]` entry) of a theme sound.
    case alias(matched: String)
    /// A file of an installed XDG sound theme (nil: unthemed).
    case xdg(theme: String?)
}

/// A name resolved to something playable.
package struct ResolvedSound: Sendable, Equatable {
    /// The name that was asked for.
    package var requestedName: String
    /// The theme entry; for an XDG file, an ambient entry made for it.
    package var entry: SoundEntry
    package var source: ResolutionSource
    /// The sound file, absolute.
    package var path: String { entry.file }
}

/// Why a name did not resolve to a sound.
package enum ResolveError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidName(name: String, problem: String)
    case unknown(name: String, suggestions: [String])
    /// An XDG theme disables this sound with a `.disabled` file: play nothing.
    case disabled(name: String, marker: String)

    package var description: String {
        switch self {
        case .invalidName(let name, let problem):
            return "\"\(name)\" is not a sound name: it \(problem); names use \(ThemeIndex.nameRule)"
        case .unknown(let name, let suggestions):
            let hint = suggestions.isEmpty ? "" : "did you mean \(suggestions.map { "\"\($0)\"" }.joined(separator: ", "))? "
            return "no sound named \"\(name)\"; \(hint)`sysound list` shows every name; add one with [aliases] in the configuration"
        case .disabled(let name, let marker):
            return "the sound \"\(name)\" is disabled by the installed sound theme (\(marker))"
        }
    }
}

/// The sounds the service can play: the theme directories of the
/// configuration merged (the first directory wins a name), every alias
/// flattened to its sound, and the XDG fallback.
package struct Theme: Sendable {
    /// Theme directories, first wins.
    package var directories: [String]
    /// Every sound, sorted by name; `file` is absolute, `aliases` lists every
    /// name that resolves to it (freedesktop names, `[aliases]` entries).
    package private(set) var entries: [SoundEntry]
    /// Alias → sound name, flattened.
    package private(set) var aliases: [String: String]
    /// The XDG fallback, nil when switched off.
    package var xdg: XDGSoundThemes?
    private var byName: [String: Int]

    /// Builds a theme from parts (tests, embedders); aliases must already be flat.
    package init(directories: [String] = [], entries: [SoundEntry], aliases: [String: String] = [:], xdg: XDGSoundThemes? = nil) {
        self.directories = directories
        self.xdg = xdg
        self.entries = entries.sorted { $0.name < $1.name }
        self.aliases = aliases.filter { entries.map(\.name).contains($0.value) }
        self.byName = [:]
        for (i, e) in self.entries.enumerated() { byName[e.name] = i }
        for (alias, target) in self.aliases {
            guard let i = byName[target], !self.entries[i].aliases.contains(alias) else { continue }
            self.entries[i].aliases.append(alias)
        }
        for i in self.entries.indices { self.entries[i].aliases.sort() }
    }

    /// The entry named exactly `name` (no aliases).
    package func entry(named name: String) -> SoundEntry? { byName[name].map { entries[$0] } }

    /// Every name `play` accepts without the XDG fallback.
    package var allNames: [String] { entries.map(\.name) + aliases.keys.sorted() }

    /// Resolves a name: a theme sound, then an alias; then the same with the
    /// last `-part` dropped, again and again (`dialog-warning-auth` →
    /// `dialog-warning`); then the installed XDG themes (which do their own
    /// dropping). The theme comes first because XDG themes are its fallback.
    package func resolve(_ name: String) throws(ResolveError) -> ResolvedSound {
        // The exact name first: the common case allocates nothing.
        if let i = byName[name] { return ResolvedSound(requestedName: name, entry: entries[i], source: .theme(matched: name)) }
        if let problem = ThemeIndex.nameProblem(name) { throw .invalidName(name: name, problem: problem) }
        for variant in XDGSoundThemes.nameVariants(name) {
            if let i = byName[variant] {
                return ResolvedSound(requestedName: name, entry: entries[i], source: .theme(matched: variant))
            }
            if let target = aliases[variant], let i = byName[target] {
                return ResolvedSound(requestedName: name, entry: entries[i], source: .alias(matched: variant))
            }
        }
        switch xdg?.lookup(name) {
        case .file(let path, let theme)?:
            return ResolvedSound(requestedName: name, entry: SoundEntry(name: name, file: path), source: .xdg(theme: theme))
        case .disabled(let marker)?:
            throw .disabled(name: name, marker: marker)
        case nil:
            throw .unknown(name: name, suggestions: NameSuggestions.closest(to: name, among: allNames))
        }
    }
}
