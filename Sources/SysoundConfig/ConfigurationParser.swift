import SysoundCore

/// Turns a parsed configuration file into a `SysoundConfiguration`, reporting
/// every problem (unknown keys, wrong types, out-of-range values, presets that
/// do not parse, references to presets that do not exist) to the document.
enum ConfigurationParser {
    static let sections = ["theme", "xdg", "categories", "policy", "audio", "haptics", "leds", "state", "server", "session", "aliases", "dbus", "apps"]

    static func parse(_ document: TOMLDocument, dataDirectory: String, environment: [String: String]) -> SysoundConfiguration {
        var config = SysoundConfiguration(dataDirectory: dataDirectory)
        config.file = document.file
        let root = document.rootReader

        if let theme = root.table("theme") {
            let paths = theme.strings("paths", default: [], expected: "an array of theme directory paths")
            if theme.table.keys.contains("paths") && paths.isEmpty {
                document.report(.invalidValue, key: "theme.paths", "no theme directory given; expected at least one, e.g. [\"Sounds\"]")
            }
            if !paths.isEmpty {
                // Against the file that names them, as a user who writes
                // "my-theme" beside ~/.config/sysound/sysound.toml means.
                let base = document.file.hasPrefix("/") ? Paths.directory(of: document.file) : dataDirectory
                config.themePaths = paths.map { Paths.resolve($0, relativeTo: base, environment: environment) }
            }
            theme.reportUnknownKeys(known: ["paths"])
        }

        if let xdg = root.table("xdg") {
            xdg.read(ConfigurationKeys.xdg, into: &config)
            for (key, keyPath) in [("theme", \XDGSettings.theme), ("profile", \XDGSettings.profile)] {
                guard let value = xdg.string(key, default: nil) else { continue }
                if value.isEmpty || value.contains(where: { $0 == "/" || $0 == "," }) || value.hasPrefix(".") {
                    document.report(.invalidValue, key: "xdg.\(key)", "\"\(value)\" is not a directory name; expected a name such as \"\(config.xdg[keyPath: keyPath])\"")
                } else {
                    config.xdg[keyPath: keyPath] = value
                }
            }
            xdg.reportUnknownKeys(known: ConfigurationKeys.xdg.map(\.name) + ["theme", "profile"])
        }

        if let categories = root.table("categories") {
            for category in SoundCategory.allCases {
                config.policy.categoryGains[category] = categories.double(category.rawValue, in: 0...1, default: 1)
            }
            categories.reportUnknownKeys(known: SoundCategory.allCases.map(\.rawValue))
        }

        let policy = root.table("policy")
        if let policy {
            config.policy.defaultAlertHaptic = policy.string("alert_haptic", default: BuiltInHaptic.alert.rawValue) ?? BuiltInHaptic.alert.rawValue
            policy.reportUnknownKeys(known: ["alert_haptic"])
        }

        if let audio = root.table("audio") {
            audio.read(ConfigurationKeys.audio, into: &config)
            audio.reportUnknownKeys(known: ConfigurationKeys.audio.map(\.name))
        }

        if let haptics = root.table("haptics") {
            haptics.read(ConfigurationKeys.haptics, into: &config)
            parseHaptics(haptics, into: &config.haptics)
        }
        if let leds = root.table("leds") { parseLeds(leds, into: &config) }
        if config.haptics.presets[config.policy.defaultAlertHaptic] == nil {
            document.report(
                .unknownReference, key: "policy.alert_haptic",
                "no haptic preset named \"\(config.policy.defaultAlertHaptic)\"\(NameSuggestions.phrase(for: config.policy.defaultAlertHaptic, among: config.haptics.presets.keys)); define it in [haptics.presets]")
        }

        if let state = root.table("state") {
            if let dir = state.string("directory", default: nil), !dir.isEmpty {
                if dir.hasPrefix("/") || dir.hasPrefix("~") {
                    config.stateDirectory = Paths.resolve(dir, relativeTo: "/", environment: environment)
                } else {
                    document.report(.invalidValue, key: "state.directory", "\"\(dir)\" is relative; expected an absolute path (or \"\" for the default)")
                }
            }
            state.reportUnknownKeys(known: ["directory"])
        }

        if let server = root.table("server") {
            if let group = server.string("socket_group", default: nil), !group.isEmpty {
                if group.allSatisfy({ $0.isLetter || $0.isNumber || "_-.".contains($0) }) {
                    config.socketGroup = group
                } else {
                    document.report(.invalidValue, key: "server.socket_group", "\"\(group)\" is not a group name; expected a name such as \"audio\" (or \"\" for none)")
                }
            }
            server.read(ConfigurationKeys.server, into: &config)
            server.reportUnknownKeys(known: ["socket_group"] + ConfigurationKeys.server.map(\.name))
        }

        if let session = root.table("session") {
            parseSession(session, into: &config)
        }

        if let aliases = root.table("aliases") {
            for name in aliases.keys {
                guard let target = aliases.string(name, default: nil, expected: "the name of a sound, in quotes") else { continue }
                config.aliases[name] = target
            }
        }

        if let dbus = root.table("dbus") {
            dbus.read(ConfigurationKeys.dbus, into: &config)
            let allowed = dbus.strings("allow_important", default: [], expected: "an array of app ids")
            for app in allowed where !PlayRequest.isValidApp(app) {
                document.report(.invalidValue, key: "dbus.allow_important", "\"\(app)\" is not an app id; expected e.g. \"org.gnome.clocks\"")
            }
            config.policy.allowImportant = Set(allowed.filter(PlayRequest.isValidApp))
            dbus.reportUnknownKeys(known: ConfigurationKeys.dbus.map(\.name) + ["allow_important"])
        }

        if let apps = root.table("apps") { parseApps(apps, into: &config.policy.apps) }

        root.reportUnknownKeys(known: sections)
        return config
    }

    /// `[apps."org.example.App"]`: `profile` (full, quiet, silent) and `gain` (0–1), both only lowering.
    private static func parseApps(_ apps: TableReader, into levels: inout [String: AppLevel]) {
        for id in apps.keys {
            guard let app = apps.table(id) else { continue }
            guard PlayRequest.isValidApp(id) else {
                apps.document.report(.invalidValue, key: apps.keyPath(id), "\"\(id)\" is not an app id; expected e.g. [apps.\"org.example.App\"]")
                continue
            }
            var level = AppLevel()
            if let text = app.string("profile", default: nil, expected: "one of \(FeedbackProfile.names), in quotes") {
                if let profile = FeedbackProfile(rawValue: text) {
                    level.profile = profile
                } else {
                    apps.document.report(.invalidValue, key: app.keyPath("profile"), "\"\(text)\" is not a profile; expected one of \(FeedbackProfile.names)")
                }
            }
            level.gain = app.double("gain", in: 0...1, default: 1)
            app.reportUnknownKeys(known: ["profile", "gain"])
            levels[id] = level
        }
    }

    private static func parseSession(_ session: TableReader, into config: inout SysoundConfiguration) {
        let known = LockSource.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        if session.table.keys.contains("lock_sources") {
            var sources: [LockSource] = []
            for name in session.strings("lock_sources", default: config.lockSources.map(\.rawValue), expected: "an array of lock sources such as [\(known)]") {
                guard let source = LockSource(rawValue: name) else {
                    session.document.report(
                        .invalidValue, key: session.keyPath("lock_sources"),
                        "\"\(name)\" is not a lock source\(NameSuggestions.phrase(for: name, among: LockSource.allCases.map(\.rawValue))); expected \(known), or [] for the locked file alone")
                    continue
                }
                if !sources.contains(source) { sources.append(source) }
            }
            config.lockSources = sources
        }
        session.reportUnknownKeys(known: ["lock_sources"])
    }

    private static func parseLeds(_ leds: TableReader, into config: inout SysoundConfiguration) {
        leds.read(ConfigurationKeys.leds, into: &config)
        config.leds.devices = leds.strings("devices", default: [], expected: "an array of LED names or shell patterns, such as \"*:status\"")
        config.leds.exclude = leds.strings("exclude", default: [], expected: "an array of LED names or shell patterns")
        leds.reportUnknownKeys(known: ConfigurationKeys.leds.map(\.name) + ["devices", "exclude"])
    }

    private static func parseHaptics(_ haptics: TableReader, into settings: inout HapticSettings) {
        // Paths, names or name patterns, or "all"; `device_names` (name
        // patterns) is the older spelling and chooses the same way.
        settings.devices = haptics.strings("devices", default: [], expected: "an array of device paths, names or \"all\"")
        settings.deviceNames = haptics.strings("device_names", default: [], expected: "an array of name patterns")
        if let (entry, why) = HapticDeviceEntries.problem(settings.devices + settings.deviceNames) {
            haptics.document.report(.invalidValue, key: "haptics.devices", "\"\(entry)\": \(why)")
        }
        settings.profile = haptics.string("profile", default: nil, expected: "a profile name such as \"pine64-pinephone\"")
        if let name = settings.profile, HapticProfile.named(name) == nil {
            haptics.document.report(.unknownReference, key: "haptics.profile", ProfileError(name: name, known: HapticProfile.shipped.map(\.name)).description)
        }
        if let presets = haptics.table("presets") {
            for name in presets.keys {
                guard let text = presets.string(name, default: nil, expected: "a pattern string such as \"1.0:20,0:40,0.6:30\"") else { continue }
                do {
                    settings.presets[name] = try HapticPattern(parsing: text)
                } catch {
                    haptics.document.report(.invalidValue, key: presets.keyPath(name), error.description)
                }
            }
        }
        haptics.reportUnknownKeys(known: ConfigurationKeys.haptics.map(\.name) + ["devices", "device_names", "profile", "presets"])
    }
}
