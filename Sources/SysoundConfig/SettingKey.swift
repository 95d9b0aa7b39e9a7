import SysoundCore

/// One scalar key of the configuration file: its name, its range, and where
/// its value lives in `SysoundConfiguration` — the one place each is stated.
/// The parser reads through it; tests check the shipped `config/sysound.toml`
/// and `sysound.toml(5)` against the defaults through it, so a default is
/// written once, in the settings type.
package struct SettingKey: Sendable {
    /// The key's name in its table (`voices`).
    package let name: String
    /// The value of `configuration` as the file writes it (`32`, `-12.0`, `"auto"`).
    package let text: @Sendable (_ configuration: SysoundConfiguration) -> String
    /// Reads the key from `table` into `configuration`; a bad value is
    /// reported and leaves the value as it was (the default).
    let read: @Sendable (_ table: TableReader, _ configuration: inout SysoundConfiguration) -> Void

    /// A whole number from `range`.
    static func int(
        _ name: String, _ path: WritableKeyPath<SysoundConfiguration, Int> & Sendable, in range: ClosedRange<Int>, unit: String = ""
    ) -> SettingKey {
        SettingKey(name: name, text: { String($0[keyPath: path]) }) { table, c in
            c[keyPath: path] = table.int(name, in: range, default: c[keyPath: path], unit: unit)
        }
    }

    /// A whole number from `range` kept as a `Double` (milliseconds the engine computes with).
    static func wholeNumber(
        _ name: String, _ path: WritableKeyPath<SysoundConfiguration, Double> & Sendable, in range: ClosedRange<Int>, unit: String = ""
    ) -> SettingKey {
        SettingKey(name: name, text: { String(Int($0[keyPath: path])) }) { table, c in
            c[keyPath: path] = Double(table.int(name, in: range, default: Int(c[keyPath: path]), unit: unit))
        }
    }

    /// A number from `range` (integers accepted too).
    static func double(
        _ name: String, _ path: WritableKeyPath<SysoundConfiguration, Double> & Sendable, in range: ClosedRange<Double>, unit: String = ""
    ) -> SettingKey {
        SettingKey(name: name, text: { String($0[keyPath: path]) }) { table, c in
            c[keyPath: path] = table.double(name, in: range, default: c[keyPath: path], unit: unit)
        }
    }

    /// `true` or `false`.
    static func bool(_ name: String, _ path: WritableKeyPath<SysoundConfiguration, Bool> & Sendable) -> SettingKey {
        SettingKey(name: name, text: { String($0[keyPath: path]) }) { table, c in
            c[keyPath: path] = table.bool(name, default: c[keyPath: path])
        }
    }

    /// A string in quotes; `check` says what the value must be, or nil when it is fine.
    static func string(
        _ name: String, _ path: WritableKeyPath<SysoundConfiguration, String> & Sendable, expected: String,
        check: @escaping @Sendable (String) -> String? = { _ in nil }
    ) -> SettingKey {
        SettingKey(name: name, text: { "\"\($0[keyPath: path])\"" }) { table, c in
            guard let text = table.string(name, default: nil, expected: expected) else { return }
            if let problem = check(text) {
                table.document.report(.invalidValue, key: table.keyPath(name), "\"\(text)\" \(problem); expected \(expected)")
                return
            }
            c[keyPath: path] = text
        }
    }

    /// One of an enumeration's names, in quotes; `noun` names a value in messages ("an audio output").
    static func choice<Value: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ path: WritableKeyPath<SysoundConfiguration, Value> & Sendable, noun: String
    ) -> SettingKey where Value.RawValue == String {
        let quoted = Value.allCases.map { "\"\($0.rawValue)\"" }
        let names = quoted.count > 1 ? quoted.dropLast().joined(separator: ", ") + " or " + quoted.last! : quoted.joined()
        return SettingKey(name: name, text: { "\"\($0[keyPath: path].rawValue)\"" }) { table, c in
            guard let text = table.string(name, default: nil, expected: "one of \(names), in quotes") else { return }
            guard let value = Value(rawValue: text) else {
                table.document.report(
                    .invalidValue, key: table.keyPath(name),
                    "\"\(text)\" is not \(noun)\(NameSuggestions.phrase(for: text, among: Value.allCases.map(\.rawValue))); expected \(names)")
                return
            }
            c[keyPath: path] = value
        }
    }
}

/// The scalar keys of each table, with their ranges: what the parser reads
/// and what the shipped file and the man page are checked against. Keys that
/// are lists, tables or names with their own rules (theme paths, presets,
/// apps, lock sources) are parsed by `ConfigurationParser` itself.
package enum ConfigurationKeys {
    package static let audio: [SettingKey] = [
        .choice("output", \.audio.backend, noun: "an audio output"),
        .int("voices", \.audio.voices, in: 1...256),
        .int("frequency", \.audio.sampleRate, in: 8_000...192_000, unit: " Hz"),
        .int("period_frames", \.audio.periodFrames, in: 64...8192, unit: " frames"),
        .int("periods", \.audio.periods, in: 2...16),
        .wholeNumber("idle_pause_ms", \.audio.idlePauseMilliseconds, in: 0...3_600_000, unit: " ms"),
        .wholeNumber("role_release_s", \.audio.roleReleaseSeconds, in: 0...86_400, unit: " s"),
        .int("realtime_priority", \.audio.realtimePriority, in: 0...99, unit: " (0: off)"),
        .double("duck_db", \.audio.duckDecibels, in: -60...0, unit: " dB"),
        .wholeNumber("duck_ramp_ms", \.audio.rampMilliseconds, in: 0...2000, unit: " ms"),
        .wholeNumber("max_clip_seconds", \.audio.maxClipSeconds, in: 1...600, unit: " s"),
        .int("max_preload_bytes", \.audio.maxPreloadBytes, in: (1 << 20)...(1 << 30), unit: " bytes"),
        .int("adhoc_cache_files", \.audio.maxCachedFiles, in: 0...1024),
    ]

    package static let haptics: [SettingKey] = [
        .double("strength_cap", \.haptics.strengthCap, in: 0...1),
    ]

    package static let leds: [SettingKey] = [
        .bool("enabled", \.leds.enabled),
    ]

    package static let xdg: [SettingKey] = [
        .bool("fallback", \.xdg.fallback),
    ]

    package static let server: [SettingKey] = [
        .bool("others_may_play_any_file", \.othersMayPlayAnyFile),
    ]

    package static let dbus: [SettingKey] = [
        .bool("enabled", \.dbus.enabled),
        .bool("replace", \.dbus.replace),
        .string("feedback_theme", \.dbus.feedbackTheme, expected: "a feedbackd theme name in quotes, such as \"default\" or \"$device\"") { name in
            name.isEmpty || name.contains("/" as Character) ? "is not a theme name (NAME.json is looked up, no paths)" : nil
        },
    ]

    /// Every table's scalar keys, by table name.
    package static let all: [(table: String, keys: [SettingKey])] = [
        ("audio", audio), ("haptics", haptics), ("leds", leds), ("xdg", xdg), ("server", server), ("dbus", dbus),
    ]
}

extension TableReader {
    /// Reads `keys` into `configuration`.
    func read(_ keys: [SettingKey], into configuration: inout SysoundConfiguration) {
        for key in keys { key.read(self, &configuration) }
    }
}
