import FoundationEssentials
import Glibc
import SysoundCore

/// `sysound check FILE.json` and `sysound list --dbus`: a feedbackd theme as
/// sysound will carry it out, checked against sysound's own sound theme.
package enum FeedbackdCheck {
    /// Whether `path` names a feedbackd theme rather than a sysound.toml.
    package static func isThemeFile(_ path: String) -> Bool { path.hasSuffix(".json") }

    /// Every problem of the theme file at `path` and its parent chain, and
    /// a warning naming each event whose sound sysound's `theme` cannot resolve.
    package static func check(themeFile path: String, against theme: Theme?, environment: [String: String] = ProcessInfo.processInfo.environment) -> [Diagnostic] {
        var environment = environment
        environment["FEEDBACK_THEME"] = path
        let (feedbackd, problems) = FeedbackdTheme.load(name: path, environment: environment)
        var diagnostics = problems
        if !problems.contains(where: { $0.file == path && $0.severity == .error }), let theme {
            diagnostics += unresolved(feedbackd, in: theme, file: path)
        }
        return diagnostics
    }

    /// One warning per event whose `Sound` names an effect that resolves to no sound.
    package static func unresolved(_ feedbackd: FeedbackdTheme, in theme: Theme, file: String) -> [Diagnostic] {
        var found: [Diagnostic] = []
        for event in feedbackd.events {
            for section in FeedbackProfile.allCases.sorted(by: >) {
                guard case .sound(let sound)? = feedbackd.sections[section]?[event] else { continue }
                do throws(ResolveError) {
                    _ = try theme.resolve(sound.effect)
                } catch {
                    found.append(Diagnostic(
                        .unknownReference, severity: .warning, file: file, key: "\(section).\(event).effect",
                        message: "the event \"\(event)\" plays \"\(sound.effect)\", which is no sound of sysound's theme (\(error)); it is silent in this section"))
                }
            }
        }
        return found
    }

    /// What each event does in each profile: the rows of `sysound list --dbus`.
    package struct Row: Sendable, Equatable, Codable {
        package var event: String
        /// By profile name (full, quiet, silent): what plays, "-" for nothing.
        package var profiles: [String: String]
    }

    /// The rows for `feedbackd` over sysound's `theme`: every event the
    /// feedbackd theme knows, then feedbackd's default events it lacks, which
    /// sysound answers by its own names.
    package static func rows(_ feedbackd: FeedbackdTheme, theme: Theme) -> [Row] {
        var rows: [Row] = []
        for event in feedbackd.events {
            var profiles: [String: String] = [:]
            for level in FeedbackProfile.allCases {
                let parts = feedbackd.feedbacks(for: event, level: level)?.map { describe($0.feedback, theme: theme) } ?? []
                profiles[level.rawValue] = parts.isEmpty ? "-" : parts.joined(separator: " + ")
            }
            rows.append(Row(event: event, profiles: profiles))
        }
        for event in FeedbackdEvents.defaultTheme where !feedbackd.knows(event) {
            // The nil case is the row's answer: "nothing (not-found)".
            let own = (try? theme.resolve(event)).map { "sysound's \($0.entry.name) (\($0.entry.category.rawValue); its own policy)" } ?? "nothing (not-found)"
            rows.append(Row(event: event, profiles: Dictionary(uniqueKeysWithValues: FeedbackProfile.allCases.map { ($0.rawValue, own) })))
        }
        return rows
    }

    static func describe(_ feedback: FeedbackdFeedback, theme: Theme) -> String {
        guard case .sound(let sound) = feedback else { return feedback.summary }
        // The nil case is the row's answer: "unresolved, silent".
        let resolved = (try? theme.resolve(sound.effect)).map { $0.entry.name == sound.effect ? "" : " → \($0.entry.name)" } ?? " → unresolved, silent"
        return "sound \(sound.effect)\(resolved)"
    }

    /// Aligned columns for people.
    package static func text(_ rows: [Row], theme feedbackd: FeedbackdTheme) -> String {
        let levels = FeedbackProfile.allCases.sorted(by: >).map(\.rawValue)
        let header = ["EVENT"] + levels.map { $0.uppercased() }
        let table = [header] + rows.map { row in [row.event] + levels.map { row.profiles[$0] ?? "-" } }
        let widths = header.indices.map { i in table.map { $0[i].count }.max() ?? 0 }
        var lines = ["feedbackd theme \"\(feedbackd.name)\": \(feedbackd.files.joined(separator: " → "))"]
        for line in table {
            lines.append(line.indices.map { i in i == line.count - 1 ? line[i] : line[i] + String(repeating: " ", count: widths[i] - line[i].count) }
                .joined(separator: "  "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
