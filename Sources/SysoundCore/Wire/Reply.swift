/// The daemon's answer to one request.
///
/// Text form: a status line, `sysound/1 ok key=value…` or
/// `sysound/1 error CODE message`, then for `ok` zero or more record lines of
/// `key=value` tokens (one per listed sound or preset).
package enum Reply: Sendable, Equatable {
    /// Done (or correctly silenced): fields such as `id=` or `outcome=`, and records for lists.
    case ok(WireFields = [:], records: [WireFields] = [])
    /// Refused or failed: a stable code for programs and a message for people.
    case error(WireErrorCode, String)

    /// Whether this is an `ok` reply.
    package var isOK: Bool { if case .ok = self { true } else { false } }
}

/// A stable, machine-readable error code. Codes a newer daemon adds still
/// parse: a client compares against the ones it knows and shows the message.
package struct WireErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package var description: String { rawValue }

    /// The request is not well-formed: unknown verb, missing argument, bad token.
    package static let badRequest = WireErrorCode(rawValue: "bad-request")
    /// A value is out of range or of the wrong kind (gain=2, volume=loud).
    package static let badValue = WireErrorCode(rawValue: "bad-value")
    /// The request datagram (or the reply) exceeds the size limit.
    package static let tooLarge = WireErrorCode(rawValue: "too-large")
    /// The request's version token is missing or not one this daemon speaks.
    package static let version = WireErrorCode(rawValue: "version")
    /// No sound of the theme has this name.
    package static let unknownSound = WireErrorCode(rawValue: "unknown-sound")
    /// No haptic preset has this name.
    package static let unknownPreset = WireErrorCode(rawValue: "unknown-preset")
    /// No event with this id is running, or ended lately.
    package static let unknownEvent = WireErrorCode(rawValue: "unknown-event")
    /// A sound file could not be read or decoded.
    package static let badFile = WireErrorCode(rawValue: "bad-file")
    /// The peer's user may not use this daemon.
    package static let denied = WireErrorCode(rawValue: "denied")
    /// No audio output or haptic device to do this with.
    package static let noDevice = WireErrorCode(rawValue: "no-device")
    /// The daemon is at its connection limit; retry later.
    package static let busy = WireErrorCode(rawValue: "busy")
    /// A bug or an unexpected system failure in the daemon.
    package static let `internal` = WireErrorCode(rawValue: "internal")

    /// Whether `text` can be a code: lower-case letters, digits and `-`.
    package static func isValid(_ text: Substring) -> Bool { WireProtocol.isKey(text) }
}

/// One `key=value` pair of a reply.
package struct WireField: Sendable, Equatable, Hashable {
    package var key: String
    package var value: String

    package init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// Ordered `key=value` pairs, keys unique: what an `ok` line or a record carries.
package struct WireFields: Sendable, Equatable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    package private(set) var pairs: [WireField] = []

    package init() {}

    /// Room for `capacity` fields before the storage grows.
    package init(capacity: Int) { pairs.reserveCapacity(capacity) }

    /// Later duplicates replace earlier ones, keeping the first position.
    package init(dictionaryLiteral elements: (String, String)...) {
        for (k, v) in elements { self[k] = v }
    }

    /// The value for `key`; setting nil removes the key.
    package subscript(key: String) -> String? {
        get { pairs.first(where: { $0.key == key })?.value }
        set {
            if let i = pairs.firstIndex(where: { $0.key == key }) {
                if let newValue { pairs[i].value = newValue } else { pairs.remove(at: i) }
            } else if let newValue {
                pairs.append(WireField(key: key, value: newValue))
            }
        }
    }

    package var isEmpty: Bool { pairs.isEmpty }
    package var count: Int { pairs.count }
    package func makeIterator() -> IndexingIterator<[WireField]> { pairs.makeIterator() }
}

// MARK: - Text form

extension Reply {
    /// The reply's datagram. Keys must be well-formed (`WireProtocol.isKey`);
    /// values are percent-encoded; the message has line breaks turned into spaces.
    package func encoded() -> [UInt8] {
        // Bytes appended in place: a reply is built once per request, on the daemon's loop.
        var out: [UInt8] = []
        out.reserveCapacity(128)
        out += WireProtocol.versionToken.utf8
        switch self {
        case .ok(let fields, let records):
            out += " ok".utf8
            for field in fields { Self.append(field, after: UInt8(ascii: " "), to: &out) }
            for record in records {
                var separator = UInt8(ascii: "\n")
                for field in record {
                    Self.append(field, after: separator, to: &out)
                    separator = UInt8(ascii: " ")
                }
                if record.isEmpty { out.append(separator) }
            }
        case .error(let code, let message):
            out += " error ".utf8
            out += code.rawValue.utf8
            let clean = Self.singleLine(message)
            if !clean.isEmpty {
                out.append(UInt8(ascii: " "))
                out += clean.utf8
            }
        }
        return out
    }

    private static func append(_ field: WireField, after separator: UInt8, to out: inout [UInt8]) {
        out.append(separator)
        out += field.key.utf8
        out.append(UInt8(ascii: "="))
        WireProtocol.encode(field.value, into: &out)
    }

    /// Parses a reply datagram.
    ///
    /// - Throws: `ReplyParseError` saying what is wrong with the reply.
    package init(parsing bytes: some Collection<UInt8>) throws(ReplyParseError) {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard let status = lines.popFirst() else { throw .empty }
        let tokens = WireProtocol.tokens(status)
        guard let version = tokens.first else { throw .empty }
        guard version == WireProtocol.versionToken else { throw .version(String(version)) }
        guard tokens.count >= 2 else { throw .malformed(line: 1, String(status)) }
        switch tokens[1] {
        case "ok":
            let fields = try Self.fields(tokens.dropFirst(2), line: 1)
            var records: [WireFields] = []
            for (i, line) in lines.enumerated() {
                records.append(try Self.fields(WireProtocol.tokens(line)[...], line: i + 2))
            }
            self = .ok(fields, records: records)
        case "error":
            guard tokens.count >= 3, WireErrorCode.isValid(tokens[2]) else { throw .malformed(line: 1, String(status)) }
            // The message is the rest of the line after the code, spacing kept.
            // Scalars, as in `WireProtocol.tokens`: a tab that a combining mark follows is still spacing.
            let message = status.unicodeScalars[tokens[2].endIndex...].drop(while: { $0 == " " || $0 == "\t" })
            self = .error(WireErrorCode(rawValue: String(tokens[2])), String(message))
        default:
            throw .malformed(line: 1, String(status))
        }
    }

    private static func fields(_ tokens: ArraySlice<Substring>, line: Int) throws(ReplyParseError) -> WireFields {
        var fields = WireFields()
        for token in tokens {
            guard let eq = token.firstIndex(of: "="), WireProtocol.isKey(token[..<eq]),
                  let value = WireProtocol.decode(token[token.index(after: eq)...]),
                  fields[String(token[..<eq])] == nil
            else { throw .malformed(line: line, String(token)) }
            fields[String(token[..<eq])] = value
        }
        return fields
    }

    static func singleLine(_ message: String) -> String {
        String(String.UnicodeScalarView(message.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }
}

/// Why a reply datagram could not be read: a daemon of another version, or a bug.
package enum ReplyParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case invalidUTF8
    case version(String)
    case malformed(line: Int, String)

    package var description: String {
        switch self {
        case .empty: "the daemon sent an empty reply"
        case .invalidUTF8: "the daemon's reply is not UTF-8"
        case .version(let v):
            "the daemon speaks \(ControlValue.quoted(v)), this client \(WireProtocol.versionToken); use the sysound of the same version"
        case .malformed(let line, let text): "the daemon's reply has a malformed line \(line): \(ControlValue.quoted(text))"
        }
    }
}
