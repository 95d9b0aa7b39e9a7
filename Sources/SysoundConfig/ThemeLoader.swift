import FoundationEssentials
import Glibc
import SysoundCore

/// Why the theme could not be loaded.
package struct ThemeError: Error, Sendable, Equatable, CustomStringConvertible {
    package var diagnostics: [Diagnostic]

    package var description: String {
        let errors = diagnostics.filter { $0.severity == .error }
        return "the sound theme has \(errors.count) problem\(errors.count == 1 ? "" : "s"); fix them (run `sysound check`):\n"
            + errors.map { "  \($0)" }.joined(separator: "\n")
    }
}

extension Theme {
    /// Loads the theme the configuration names; refuses one with any error.
    package static func load(configuration: SysoundConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ThemeError) -> Theme {
        let (theme, diagnostics) = read(configuration: configuration, environment: environment)
        if diagnostics.containsErrors { throw ThemeError(diagnostics: diagnostics) }
        return theme
    }

    /// Reads the theme leniently: what could be loaded, and every problem.
    ///
    /// `checkingFiles: false` leaves each sound's file unopened (whether it
    /// exists, what it holds, how long it lasts): a one-shot play decodes
    /// the one sound it plays, which tells the same problems, and opening
    /// every file of the theme was a third of reading it.
    package static func read(
        configuration config: SysoundConfiguration, environment: [String: String] = ProcessInfo.processInfo.environment,
        checkingFiles: Bool = true
    ) -> (Theme, [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        let configFile = config.file ?? "(built-in defaults)"
        // Only for line numbers in diagnostics, read at the first one (the
        // file was read whole a moment ago; a theme without problems needs none).
        lazy var configLines = config.file.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }.map(KeyLines.init(text:))
        func configOrigin(_ key: String) -> Origin { Origin(file: configFile, line: configLines?.line(of: key), key: key) }

        var indexes: [ThemeIndex] = []
        let presets = Set(config.haptics.presets.keys)
        for directory in config.themePaths {
            guard Paths.isDirectory(directory) else {
                let o = configOrigin("theme.paths")
                diagnostics.append(Diagnostic(.missingFile, file: o.file, line: o.line, key: o.key, message: "the theme directory \(directory) does not exist; expected a directory holding \(ThemeIndex.fileName)"))
                continue
            }
            let (index, found) = ThemeIndex.read(
                directory: directory, presets: presets, maxClipSeconds: config.audio.maxClipSeconds, checkingFiles: checkingFiles)
            diagnostics += found
            indexes.append(index)
        }

        // Sounds: the first directory that defines a name wins.
        var entries: [String: SoundEntry] = [:]
        for index in indexes {
            for entry in index.entries where entries[entry.name] == nil { entries[entry.name] = entry }
        }
        // Aliases listed on a sound point straight at it.
        var direct: [String: String] = [:]
        for index in indexes {
            for entry in index.entries {
                for alias in entry.aliases where entries[alias] == nil && direct[alias] == nil { direct[alias] = entry.name }
            }
        }
        // [aliases] tables: the configuration's first, then each theme's.
        var table: [String: (target: String, origin: Origin)] = [:]
        for (alias, target) in config.aliases.sorted(by: { $0.key < $1.key }) {
            let origin = configOrigin("aliases.\(alias)")
            if let problem = ThemeIndex.nameProblem(alias) {
                diagnostics.append(Diagnostic(.invalidValue, file: origin.file, line: origin.line, key: origin.key, message: "the alias \(problem); expected \(ThemeIndex.nameRule)"))
            } else if entries[alias] != nil {
                diagnostics.append(Diagnostic(.duplicateName, file: origin.file, line: origin.line, key: origin.key, message: "\"\(alias)\" is already the name of a theme sound, so this alias would never be used; choose another name"))
            } else {
                table[alias] = (target, origin)
            }
        }
        for index in indexes {
            for (alias, target) in index.aliasTable where table[alias] == nil && entries[alias] == nil {
                table[alias] = (target, index.origins[alias] ?? Origin(file: Paths.join(index.directory, ThemeIndex.fileName), key: "aliases.\(alias)"))
            }
        }

        var flat = direct
        var reportedCycles: Set<[String]> = []
        for alias in table.keys.sorted() {
            var chain = [alias]
            var current = table[alias]!.target
            while true {
                if entries[current] != nil { flat[alias] = current; break }
                if let sound = direct[current] { flat[alias] = sound; break }
                if let start = chain.firstIndex(of: current) {
                    let cycle = Array(chain[start...])
                    if reportedCycles.insert(cycle.sorted()).inserted {
                        let o = table[cycle.sorted()[0]]!.origin
                        let path = (cycle + [current]).map { "\"\($0)\"" }.joined(separator: " → ")
                        diagnostics.append(Diagnostic(.aliasCycle, file: o.file, line: o.line, key: o.key, message: "aliases form a cycle (\(path)) and name no sound; point one of them at a sound"))
                    }
                    break
                }
                guard let next = table[current] else {
                    let o = table[chain.last!]!.origin
                    let known = Array(entries.keys) + Array(direct.keys) + Array(table.keys)
                    diagnostics.append(Diagnostic(.unknownReference, file: o.file, line: o.line, key: o.key, message: "\"\(current)\" is not a sound or an alias\(NameSuggestions.phrase(for: current, among: known)); expected the name of a theme sound"))
                    break
                }
                chain.append(current)
                current = next.target
            }
        }

        let xdg = config.xdg.fallback
            ? XDGSoundThemes(environment: environment, theme: config.xdg.theme, profile: config.xdg.profile) : nil
        let theme = Theme(
            directories: indexes.map(\.directory), entries: Array(entries.values), aliases: flat, xdg: xdg)
        return (theme, diagnostics)
    }
}
