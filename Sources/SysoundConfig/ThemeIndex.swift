import FoundationEssentials
import Glibc
import SysoundCore

/// Where a name was defined, for diagnostics about it.
struct Origin: Sendable, Equatable {
    var file: String
    var line: Int?
    var key: String
}

/// One theme directory's `index.toml`, read: its sounds (files made
/// absolute) and its `[aliases]` table.
struct ThemeIndex {
    static let fileName = "index.toml"
    static let soundKeys = ["file", "gain", "category", "priority", "haptic", "aliases", "loopable", "input", "role"]

    var directory: String
    var name: String?
    var description: String?
    var entries: [SoundEntry] = []
    /// Where each sound and each alias was defined.
    var origins: [String: Origin] = [:]
    /// `[aliases]`: alias → target, which may itself be an alias.
    var aliasTable: [String: String] = [:]

    /// A sound or alias name: what `play` takes and what the XDG lookup turns
    /// into a path component, so no `/`, no leading dot, nothing odd.
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.count > 128 { return "is longer than 128 characters" }
        if name.hasPrefix(".") || name.hasPrefix("-") { return "starts with \"\(name.first!)\"" }
        if let bad = name.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0))) }) {
            return "contains \"\(bad)\""
        }
        return nil
    }
    static let nameRule = "letters, digits, \"-\", \"_\" and \".\", not starting with \".\" or \"-\""

    /// Reads `<directory>/index.toml`. `presets` are the haptic preset names
    /// the configuration defines, which `haptic` keys must name.
    /// `checkingFiles`: whether each sound's file is opened to check it (`Theme.read`).
    static func read(directory: String, presets: Set<String>, maxClipSeconds: Double, checkingFiles: Bool = true) -> (ThemeIndex, [Diagnostic]) {
        var index = ThemeIndex(directory: directory)
        let path = Paths.join(directory, fileName)
        let document: TOMLDocument
        switch TOMLDocument.read(path: path) {
        case .failure(let diagnostic): return (index, [diagnostic])
        case .success(let d): document = d
        }
        let root = document.rootReader
        if let theme = root.table("theme") {
            index.name = theme.string("name", default: nil)
            index.description = theme.string("description", default: nil)
            theme.reportUnknownKeys(known: ["name", "description"])
        }
        var aliasOwner: [String: String] = [:]
        if let sounds = root.table("sounds") {
            for name in sounds.keys {
                guard let sound = sounds.table(name) else { continue }
                if let problem = nameProblem(name) {
                    document.report(.invalidValue, key: sound.path, "the sound name \(problem); expected \(nameRule)")
                    continue
                }
                guard var entry = readEntry(
                    name, sound, directory: directory, presets: presets, maxClipSeconds: maxClipSeconds, checkingFile: checkingFiles
                ) else { continue }
                index.origins[name] = Origin(file: path, line: document.line(of: sound.path!), key: sound.path!)
                var accepted: [String] = []
                defer {
                    entry.aliases = accepted
                    index.entries.append(entry)
                }
                for alias in entry.aliases {
                    let key = sound.keyPath("aliases")
                    if let problem = nameProblem(alias) {
                        document.report(.invalidValue, key: key, "the alias \"\(alias)\" \(problem); expected \(nameRule)")
                    } else if let owner = aliasOwner[alias] {
                        document.report(.duplicateName, key: key, "the alias \"\(alias)\" is already an alias of \"\(owner)\"; a name can mean only one sound, remove one of them")
                    } else {
                        aliasOwner[alias] = name
                        accepted.append(alias)
                        index.origins[alias] = Origin(file: path, line: document.line(of: key), key: key)
                    }
                }
            }
        } else if !document.diagnostics.contains(where: { $0.key == "sounds" }) {
            document.report(.missingKey, key: nil, "the index defines no sounds; expected [sounds.NAME] tables with at least a file key")
        }
        let names = Set(index.entries.map(\.name))
        for (alias, owner) in aliasOwner where names.contains(alias) {
            document.report(.duplicateName, key: "sounds.\(owner).aliases", "the alias \"\(alias)\" is also the name of a sound; remove the alias or rename the sound")
        }
        if let aliases = root.table("aliases") {
            for alias in aliases.keys {
                guard let target = aliases.string(alias, default: nil, expected: "the name of a sound, in quotes") else { continue }
                let key = aliases.keyPath(alias)
                if let problem = nameProblem(alias) {
                    document.report(.invalidValue, key: key, "the alias \(problem); expected \(nameRule)")
                } else if names.contains(alias) || aliasOwner[alias] != nil {
                    let what = names.contains(alias) ? "the name of a sound" : "already an alias of \"\(aliasOwner[alias]!)\""
                    document.report(.duplicateName, key: key, "\"\(alias)\" is \(what); a name can mean only one sound, remove one of them")
                } else {
                    index.aliasTable[alias] = target
                    index.origins[alias] = Origin(file: path, line: document.line(of: key), key: key)
                }
            }
        }
        root.reportUnknownKeys(known: ["theme", "sounds", "aliases"])
        index.entries.sort { $0.name < $1.name }
        return (index, document.diagnostics)
    }

    /// A key whose value is one of an enumeration's names: the value, or nil
    /// and one error naming the key, the nearest names and every choice.
    private static func choice<T: CaseIterable & RawRepresentable>(
        _ key: String, of sound: TableReader, named what: String, parse: (String) -> T?, otherwise: String = ""
    ) -> T? where T.RawValue == String {
        guard let text = sound.string(key, default: nil) else { return nil }
        if let value = parse(text) { return value }
        let all = T.allCases.map(\.rawValue)
        sound.document.report(.invalidValue, key: sound.keyPath(key), "unknown \(what) \"\(text)\"\(NameSuggestions.phrase(for: text, among: all)); expected one of \(all.joined(separator: ", "))\(otherwise)")
        return nil
    }

    private static func readEntry(
        _ name: String, _ sound: TableReader, directory: String, presets: Set<String>, maxClipSeconds: Double, checkingFile: Bool
    ) -> SoundEntry? {
        let document = sound.document
        let file = sound.string("file", default: nil, expected: "the sound file's path, in quotes")
        var entry = SoundEntry(name: name, file: file.map { Paths.resolve($0, relativeTo: directory, environment: [:]) } ?? "")
        entry.gain = sound.double("gain", in: 0...1, default: 1)
        if let category = choice("category", of: sound, named: "category", parse: SoundCategory.init(parsing:)) { entry.category = category }
        entry.priority = sound.int("priority", in: -1000...1000, default: 0)
        if let haptic = sound.string("haptic", default: nil) {
            if AHAPCheck.isPatternFile(haptic) {
                // A Core Haptics pattern beside the theme: the sound's haptic,
                // rendered for the motor (its AudioCustom events are not
                // played: the entry's own sound is).
                let path = Paths.resolve(haptic, relativeTo: directory, environment: [:])
                do {
                    let (score, notes) = try AHAPReader.read(file: path)
                    entry.haptic = haptic
                    entry.hapticScore = score
                    for note in notes {
                        document.report(.invalidValue, key: sound.keyPath("haptic"), "\(path): \(note)", severity: .warning)
                    }
                } catch {
                    document.report(.invalidValue, key: sound.keyPath("haptic"), "\(path): \(error); fix the pattern, or name a preset of [haptics.presets]")
                }
            } else if presets.contains(haptic) {
                entry.haptic = haptic
            } else {
                document.report(.unknownReference, key: sound.keyPath("haptic"), "no haptic preset named \"\(haptic)\"\(NameSuggestions.phrase(for: haptic, among: presets)); expected a preset of [haptics.presets] in the configuration")
            }
        }
        entry.aliases = sound.strings("aliases", default: [], expected: "an array of names")
        entry.loopable = sound.bool("loopable", default: false)
        entry.input = sound.bool("input", default: false)
        entry.role = choice("role", of: sound, named: "media role", parse: MediaRole.init(parsing:), otherwise: "; the category's role is used")
        sound.reportUnknownKeys(known: soundKeys)
        guard file != nil else {
            if !sound.table.keys.contains("file") {
                document.report(.missingKey, key: sound.keyPath("file"), "missing; expected the sound file's path, e.g. file = \"\(name).wav\"")
            }
            return nil
        }
        guard checkingFile else { return entry }
        if !Paths.isFile(entry.file) {
            document.report(.missingFile, key: sound.keyPath("file"), "the sound file \(entry.file) does not exist; expected a WAV, FLAC or Ogg file relative to \(directory)")
        } else {
            do {
                let info = try SoundFileInfo.read(path: entry.file)
                if info.durationMs > maxClipSeconds * 1000 {
                    document.report(.outOfRange, key: sound.keyPath("file"), "the sound lasts \(Int(info.durationMs / 1000)) s, longer than audio.max_clip_seconds (\(Int(maxClipSeconds)) s); shorten it or raise the limit")
                }
            } catch {
                document.report(.badSoundFile, key: sound.keyPath("file"), "\(error); expected a WAV, FLAC or Ogg/Vorbis file libsndfile can read")
            }
        }
        return entry
    }
}
