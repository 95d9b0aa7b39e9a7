/// Why a request datagram was refused. Every case names the bad part; the
/// daemon sends `reply` back and keeps serving.
package enum RequestParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing but whitespace (or nothing at all).
    case empty
    /// More than `WireProtocol.maximumRequestSize` bytes.
    case tooLarge(size: Int)
    /// The bytes are not UTF-8; `offset` is the first bad byte.
    case invalidUTF8(offset: Int)
    /// A raw control character (NUL, newline inside, …) at `offset`.
    case controlCharacter(offset: Int, byte: UInt8)
    /// The first token is not `sysound/N`.
    case missingVersion(found: String)
    /// `sysound/N` with an N this daemon does not speak.
    case unsupportedVersion(found: String)
    /// The version and nothing else.
    case missingVerb
    case unknownVerb(String)
    /// A positional argument is missing; `expected` says what should be there.
    case missingArgument(verb: String, expected: String)
    /// A positional argument this verb does not take.
    case unexpectedArgument(verb: String, found: String)
    case unknownOption(verb: String, key: String, known: [String])
    case duplicateOption(key: String)
    /// A `%` escape that is not two hex digits, decodes to invalid UTF-8, or to a NUL.
    case badEncoding(token: String)
    /// A token with an `=` whose key is not lower-case letters, digits and `-`.
    case badKey(token: String)
    /// An argument or option whose value is not acceptable.
    case badValue(name: String, found: String, expected: String)
    /// Two arguments that exclude each other (a sound name and `file=`).
    case conflicting(String, String)

    /// The reply code this error is sent with.
    package var code: WireErrorCode {
        switch self {
        case .tooLarge: .tooLarge
        case .missingVersion, .unsupportedVersion: .version
        case .badValue: .badValue
        default: .badRequest
        }
    }

    /// The `error` reply for this error.
    package var reply: Reply { .error(code, description) }

    package var description: String {
        let q = { (s: String) in ControlValue.quoted(s) }
        switch self {
        case .empty:
            return "empty request; expected \(WireProtocol.versionToken) VERB …, e.g. \(WireProtocol.versionToken) ping"
        case .tooLarge(let size):
            return "request of \(size) bytes; at most \(WireProtocol.maximumRequestSize) are allowed"
        case .invalidUTF8(let offset):
            return "request is not UTF-8 (bad byte at offset \(offset))"
        case .controlCharacter(let offset, let byte):
            let hex = String(byte, radix: 16, uppercase: true)
            return "control character 0x\(byte < 16 ? "0" : "")\(hex) at offset \(offset); write it as %\(byte < 16 ? "0" : "")\(hex) inside a token"
        case .missingVersion(let found):
            return "request starts with \(q(found)); it must start with \(WireProtocol.versionToken)"
        case .unsupportedVersion(let found):
            return "this daemon speaks \(WireProtocol.versionToken), not \(q(found))"
        case .missingVerb:
            return "no verb after \(WireProtocol.versionToken); expected one of \(RequestParser.verbs.joined(separator: ", "))"
        case .unknownVerb(let verb):
            return "unknown verb \(q(verb)); expected one of \(RequestParser.verbs.joined(separator: ", "))"
        case .missingArgument(let verb, let expected):
            return "\(verb): missing \(expected)"
        case .unexpectedArgument(let verb, let found):
            return "\(verb): unexpected argument \(q(found))"
        case .unknownOption(let verb, let key, let known):
            let list = known.isEmpty ? "it takes no options" : "known: " + known.joined(separator: ", ")
            return "\(verb): unknown option \(q(key)); \(list)"
        case .duplicateOption(let key):
            return "option \(q(key)) given more than once"
        case .badEncoding(let token):
            return "token \(q(token)) has a bad %-escape (need %XX hex, giving UTF-8 without NUL)"
        case .badKey(let token):
            return "token \(q(token)) is not key=value with a key of a-z, 0-9 and -"
        case .badValue(let name, let found, let expected):
            return "\(name) \(q(found)): expected \(expected)"
        case .conflicting(let a, let b):
            return "\(a) and \(b) exclude each other; give one"
        }
    }
}
