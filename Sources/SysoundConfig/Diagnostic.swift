/// One problem found in a configuration file or a theme index: what
/// `sysound check` prints, and what a refused load carries.
public struct Diagnostic: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable {
        case error, warning
    }

    /// What kind of problem, stable for scripts and tests.
    public enum Kind: String, Sendable, Hashable {
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

    public var severity: Severity
    public var kind: Kind
    /// The file the problem is in.
    public var file: String
    /// The 1-based line, where it is known.
    public var line: Int?
    /// The dotted key path (`audio.voices`, `sounds.tap.file`), where there is one.
    public var key: String?
    /// What is wrong and what is expected instead.
    public var message: String

    public init(
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
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": \(severity.rawValue): "
        if let key { text += "\(key): " }
        return text + message
    }
}

extension Array where Element == Diagnostic {
    /// Whether any of these is an error (warnings do not fail a check).
    public var containsErrors: Bool { contains { $0.severity == .error } }
}
