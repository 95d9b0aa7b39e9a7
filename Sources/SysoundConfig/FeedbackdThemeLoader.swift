import FoundationEssentials
import Glibc
import SysoundCore

/// A feedbackd theme as feedbackd uses it: the theme found by name (or
/// `FEEDBACK_THEME`), merged over its `parent-name` chain, a child's entry
/// replacing its parent's for the same event in the same section.
package struct FeedbackdTheme: Sendable, Equatable {
    /// The name of the theme that was asked for.
    package var name: String
    /// The files of the chain, the theme's own first.
    package var files: [String]
    package var sections: [FeedbackProfile: [String: FeedbackdFeedback]]

    /// The name that means "the theme of this device" (by device-tree compatible).
    package static let deviceName = "$device"
    /// Names feedbackd reserves: no file is looked up for them.
    static func isReserved(_ name: String) -> Bool { name.hasPrefix("__") || name.hasPrefix("$") }

    package init(name: String, files: [String] = [], sections: [FeedbackProfile: [String: FeedbackdFeedback]] = [:]) {
        self.name = name
        self.files = files
        self.sections = sections
    }

    /// The sections a level uses: full uses full, quiet and silent; quiet uses quiet and silent; silent uses silent.
    package static func sections(for level: FeedbackProfile) -> [FeedbackProfile] {
        FeedbackProfile.allCases.filter { $0 <= level }.sorted(by: >)
    }

    /// What `event` does at `level`, each with its section, most feedback
    /// first; nil when the theme does not know the event in any section (the
    /// D-Bus face then tries sysound's own names). Empty: known, but nothing at this level.
    package func feedbacks(for event: String, level: FeedbackProfile) -> [(section: FeedbackProfile, feedback: FeedbackdFeedback)]? {
        guard knows(event) else { return nil }
        return Self.sections(for: level).compactMap { section in sections[section]?[event].map { (section, $0) } }
    }

    /// Whether the theme gives the event anything. An event with LEDs alone
    /// (feedbackd's `*-missed-*`) is the theme's too: it lights the LED (on a
    /// machine without one the manager answers it by sysound's own names).
    package func knows(_ event: String) -> Bool {
        sections.values.contains { $0[event] != nil }
    }

    /// Every event the theme answers (see `knows`), sorted.
    package var events: [String] { Set(sections.values.flatMap(\.keys)).filter(knows).sorted() }

    /// What sysound adds beneath every theme: feedbackd 0.8.4's on-screen
    /// keyboard events, whose haptic is felt in every profile (the silent
    /// section) and which sysound's `key` sound answers in full. Themes older
    /// than 0.8.4 (Debian's default.json among them) lack them.
    package static let builtIn = FeedbackdTheme(name: "sysound built-in", files: ["(built-in)"], sections: [
        .full: ["key-pressed": .sound(FeedbackdSound(effect: "key-pressed", mediaRole: .event))],
        .silent: [
            "key-pressed": .rumble(FeedbackdRumble(durationMs: 7, count: 1, pauseMs: 0, magnitude: 1)),
            "key-released": .rumble(FeedbackdRumble(durationMs: 7, count: 1, pauseMs: 0, magnitude: 0.5)),
        ],
    ])

    /// `child` over `self`: per section and event, the child's entry wins.
    func overlaid(by child: FeedbackdThemeFile) -> FeedbackdTheme {
        var merged = self
        merged.files.insert(child.file, at: 0)
        for (section, entries) in child.sections {
            merged.sections[section, default: [:]].merge(entries) { _, new in new }
        }
        return merged
    }
}

extension FeedbackdTheme {
    /// The directories searched for NAME.json: `$XDG_CONFIG_HOME/feedbackd/themes`,
    /// then each `$XDG_DATA_DIRS/feedbackd/themes`, as feedbackd does.
    package static func searchDirectories(environment: [String: String]) -> [String] {
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let data = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return ([config] + data).map { $0 + "/feedbackd/themes" }
    }

    /// Finds the theme file for `name`: `$device` tries each device-tree
    /// compatible, then `default`; other reserved names find nothing.
    static func file(named name: String, environment: [String: String]) -> String? {
        if name == deviceName {
            for compatible in MachineIdentity.deviceTreeCompatible(environment: environment) {
                if let path = file(named: compatible, environment: environment) { return path }
            }
            return file(named: "default", environment: environment)
        }
        guard !isReserved(name), !name.isEmpty, !name.contains("/" as Character) else { return nil }
        for directory in searchDirectories(environment: environment) {
            let path = directory + "/" + name + ".json"
            if Paths.isFile(path) { return path }
        }
        return nil
    }

    /// The longest parent chain followed; beyond it a chain is treated as a cycle.
    static let maximumChain = 16

    /// Loads the theme feedbackd would: the file `FEEDBACK_THEME` names, else
    /// `name` (the `[dbus] feedback_theme` setting) looked up as above, with
    /// its parents. Problems are warnings naming file and key; a theme that
    /// cannot be found leaves sysound's built-in events alone, with a
    /// `.missingFile` warning saying where it looked.
    package static func load(name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> (FeedbackdTheme, [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        var chain: [FeedbackdThemeFile] = []
        var seen: Set<String> = []
        var next: (path: String?, name: String)
        if let forced = environment["FEEDBACK_THEME"], !forced.isEmpty {
            next = (forced, forced)
        } else {
            next = (file(named: name, environment: environment), name)
        }
        var wantedBy: String?
        while true {
            guard let path = next.path else {
                let dirs = searchDirectories(environment: environment).joined(separator: ", ")
                let what = wantedBy.map { "the parent \"\(next.name)\" of \($0)" } ?? "the feedbackd theme \"\(next.name)\""
                diagnostics.append(Diagnostic(
                    .missingFile, severity: .warning, file: wantedBy ?? "(feedbackd theme)", key: wantedBy == nil ? nil : "parent-name",
                    message: "\(what) was not found (as NAME.json in \(dirs)); D-Bus events use sysound's own names"))
                break
            }
            let canonical = Paths.standardize(path)
            guard seen.insert(canonical).inserted, chain.count < maximumChain else {
                diagnostics.append(Diagnostic(
                    .aliasCycle, severity: .warning, file: wantedBy ?? path, key: "parent-name",
                    message: "the parent chain comes back to \(path); the chain is cut there"))
                break
            }
            let (file, found) = FeedbackdThemeFile.read(path: path)
            diagnostics += found
            guard let file else { break }
            chain.append(file)
            guard let parent = file.parentName, !parent.isEmpty else { break }
            wantedBy = path
            next = (Self.file(named: parent, environment: environment), parent)
        }
        var theme = builtIn
        theme.name = environment["FEEDBACK_THEME"].flatMap { $0.isEmpty ? nil : $0 } ?? name
        for file in chain.reversed() { theme = theme.overlaid(by: file) }
        return (theme, diagnostics)
    }
}
