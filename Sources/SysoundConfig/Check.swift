import FoundationEssentials
import Glibc

/// `sysound check [FILE]`: every problem of a configuration and its theme.
package enum SysoundCheck {
    /// Validates the configuration (`configPath`, or the one the search
    /// order finds) and the theme it names: syntax, unknown keys, wrong types,
    /// out-of-range values, haptic patterns, missing or unreadable sound
    /// files, alias cycles, duplicate names. Sorted by file and line.
    /// The check fails when `containsErrors` is true.
    package static func check(configPath: String? = nil, search: ConfigurationSearch = ConfigurationSearch()) -> [Diagnostic] {
        let file: String
        do {
            file = try search.configurationFile(override: configPath)
        } catch {
            return [Diagnostic(.missingFile, file: configPath ?? "(configuration)", message: error.description)]
        }
        let config: SysoundConfiguration
        var diagnostics: [Diagnostic]
        do {
            (config, diagnostics) = try SysoundConfiguration.read(file: file, search: search)
        } catch {
            return [Diagnostic(.missingFile, file: file, message: error.description)]
        }
        let (theme, themeDiagnostics) = Theme.read(configuration: config, environment: search.environment)
        diagnostics += themeDiagnostics
        if config.dbus.enabled {
            diagnostics += FeedbackdEvents.unresolved(in: theme, file: config.themePaths.first.map { $0 + "/index.toml" } ?? file)
        }
        return diagnostics.sorted {
            ($0.file, $0.line ?? 0, $0.key ?? "") < ($1.file, $1.line ?? 0, $1.key ?? "")
        }
    }
}
