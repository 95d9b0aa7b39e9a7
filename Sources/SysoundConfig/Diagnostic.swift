/// One problem found in a configuration file or a theme index: what
/// `sysound check` prints, and what a refused load carries.
package struct Diagnostic: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    package enum Severity: String, Sendable, Hashable {
        case error, warning
    }

    /// What kind of problem, stable for scripts and tests.
    package enum Kind: String, Sendable, Hashable {
        case unreadable
        case syntax
        case unknownKey = "unknown-key"
        case wrongType = "wrong-type"
        case outOfRange = "out-of-range"
        case invalidValue = "invalid-value"
        case missingKey = "missing-key"
        case missingFile = "missing-file"
        case badSoundFile = "bad-sound-file"
        case aliasCycle = "alias-cycle"
        case duplicateName = "duplicate-name"
        case unknownReference = "unknown-reference"
    }

    package var severity: Severity
    package var kind: Kind
    /// The file the problem is in.
    package var file: String
    /// The 1-based line, where it is known.
    package var line: Int?
    /// The dotted key path (`audio.voices`, `sounds.tap.file`), where there is one.
    package var key: String?
    /// What is wrong and what is expected instead.
    package var message: String

    package init(
        _ kind: Kind, severity: Severity = .error, file: String, line: Int? = nil, key: String? = nil,
        message: String
    ) {
        self.kind = kind
        self.severity = severity
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `file:line: error: key: message`, the form compilers use, so editors can jump to it.
    package var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": \(severity.rawValue): "
        if let key { text += "\(key): " }
        return text + message
    }
}

extension Array where Element == Diagnostic {
    /// Whether any of these is an error (warnings do not fail a check).
    package var containsErrors: Bool { contains { $0.severity == .error } }
}
