/// Constants and the text conventions of the socket protocol, shared by the
/// request and reply codecs.
///
/// A datagram is UTF-8 text: tokens separated by spaces (or tabs). The first
/// token is the version (`sysound/1`). Options are `key=value` tokens split at
/// the first `=`. Inside a token, any byte may be written `%XX` (two hex
/// digits); a space, `%`, `=` and control characters must be, so any language
/// can build a request with its URL-encoding function.
package enum WireProtocol {
    /// The protocol version this build speaks.
    package static let version = 1
    /// The first token of every request and reply.
    package static let versionToken = "sysound/\(version)"
    /// Largest request datagram, in bytes (a trailing newline included).
    package static let maximumRequestSize = 4096
    /// Largest reply datagram, in bytes: lists can be longer than a request.
    package static let maximumReplySize = 65536

    /// `text` with the bytes that are not allowed raw inside a token written `%XX`.
    package static func encode(_ text: String) -> String {
        guard text.utf8.contains(where: mustEscape) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        encode(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text`, encoded as `encode(_:)` does, to `out`.
    package static func encode(_ text: String, into out: inout [UInt8]) {
        for byte in text.utf8 {
            if mustEscape(byte) {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            } else {
                out.append(byte)
            }
        }
    }

    private static func mustEscape(_ byte: UInt8) -> Bool {
        byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "=")
    }

    /// Decodes `%XX` escapes; nil if an escape is malformed, the result is not
    /// UTF-8, or it contains a NUL (which no name or path can hold).
    package static func decode(_ token: Substring) -> String? {
        guard token.utf8.contains(UInt8(ascii: "%")) else {
            return token.utf8.contains(0) ? nil : String(token)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.utf8.count)
        var it = token.utf8.makeIterator()
        while let byte = it.next() {
            if byte == UInt8(ascii: "%") {
                guard let hi = it.next().flatMap(hexValue), let lo = it.next().flatMap(hexValue) else { return nil }
                bytes.append(hi << 4 | lo)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether `key` is a well-formed option key: lower-case letters, digits and `-`.
    package static func isKey(_ key: Substring) -> Bool {
        !key.isEmpty && key.utf8.count <= 32
            && key.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
    }

    /// Splits a line into tokens at runs of spaces and tabs.
    static func tokens(_ line: Substring) -> [Substring] {
        // Unicode scalars, not Characters: a space followed by a combining mark
        // is one Character to Swift, but a separator and a token on the wire.
        line.unicodeScalars.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(Substring.init)
    }

    /// Parses a decimal number (`0.5`, `1`, `2.5e-1`) that must be finite.
    /// Refuses `nan`, `inf`, hex floats and anything longer than 32 characters.
    static func number(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.count <= 32,
              text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2B || $0 == 0x2D || $0 == 0x65 || $0 == 0x45 }),
              let value = Double(text), value.isFinite
        else { return nil }
        return value
    }

    /// The shortest text that parses back to the same number.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? 0x30 + v : 0x41 + v - 10
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
