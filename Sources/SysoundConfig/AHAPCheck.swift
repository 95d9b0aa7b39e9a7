import SysoundCore

/// `sysound check FILE.ahap`: a Core Haptics pattern as sysound reads it.
package enum AHAPCheck {
    package static func isPatternFile(_ path: String) -> Bool { path.hasSuffix(".ahap") }

    /// The file's error, if it cannot be played, and what of it is ignored or
    /// clamped (warnings), each with its line and key.
    package static func check(file path: String) -> [Diagnostic] {
        do {
            let (_, notes) = try AHAPReader.read(file: path)
            return notes.map { diagnostic($0, file: path, severity: .warning) }
        } catch {
            return [diagnostic(error, file: path, severity: .error)]
        }
    }

    static func diagnostic(_ issue: AHAPError, file: String, severity: Diagnostic.Severity) -> Diagnostic {
        Diagnostic(
            issue.line == 0 ? .unreadable : .invalidValue, severity: severity, file: file,
            line: issue.line == 0 ? nil : issue.line, key: issue.key, message: issue.message)
    }
}
