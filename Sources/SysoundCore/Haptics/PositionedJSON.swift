/// A JSON document read with the line of every value, so that a message about
/// a designer's file can say where the mistake is ("line 12: Time is a
/// string"). Foundation's reader gives no positions, and the core model and
/// the thin CLI that parse AHAP files do not link Foundation.
///
/// RFC 8259 JSON; objects keep their keys in file order (a repeated key: the
/// last one counts, as in Foundation and Core Haptics).
package indirect enum PositionedJSON: Sendable, Equatable {
    case object([Member], line: Int)
    case array([PositionedJSON], line: Int)
    case string(String, line: Int)
    case number(Double, line: Int)
    case bool(Bool, line: Int)
    case null(line: Int)

    package struct Member: Sendable, Equatable {
        package var key: String
        package var value: PositionedJSON
    }

    /// The line (1-based) where this value starts.
    package var line: Int {
        switch self {
        case .object(_, let l), .array(_, let l), .string(_, let l), .number(_, let l), .bool(_, let l), .null(let l): l
        }
    }

    /// `key`'s value when this is an object holding it.
    package subscript(key: String) -> PositionedJSON? {
        guard case .object(let members, _) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// What a message calls this kind of value ("a string", "an array").
    package var kind: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "true or false"
        case .null: "null"
        }
    }

    /// Deeper nesting is refused: a hostile file must not exhaust the stack.
    package static let maximumDepth = 64

    /// Reads `text` as one JSON value.
    ///
    /// - Throws: `PositionedJSONError` with the line and what was expected.
    package init(parsing text: String) throws(PositionedJSONError) {
        var reader = Reader(Array(text.utf8))
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.atEnd else { throw reader.error("text after the end of the JSON value") }
        self = value
    }
}

/// Why a text is not JSON, and where.
package struct PositionedJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var message: String
    package var description: String { "line \(line): \(message)" }
}

private struct Reader {
    let bytes: [UInt8]
    var index = 0
    var line = 1

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }

    func error(_ message: String) -> PositionedJSONError { PositionedJSONError(line: line, message: message) }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\n"): line += 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: return
            }
            index += 1
        }
    }

    mutating func value(depth: Int) throws(PositionedJSONError) -> PositionedJSON {
        guard depth < PositionedJSON.maximumDepth else {
            throw error("nested deeper than \(PositionedJSON.maximumDepth) levels")
        }
        guard index < bytes.count else { throw error("the file ends where a value was expected") }
        let at = line
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string(), line: at)
        case UInt8(ascii: "t"): try literal("true"); return .bool(true, line: at)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false, line: at)
        case UInt8(ascii: "n"): try literal("null"); return .null(line: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number(), line: at)
        default: throw error("unexpected \(shown(bytes[index])); expected a value")
        }
    }

    mutating func object(depth: Int) throws(PositionedJSONError) -> PositionedJSON {
        let at = line
        index += 1
        var members: [PositionedJSON.Member] = []
        skipSpace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members, line: at) }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a key in double quotes")
            }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after the key \"\(key)\"") }
            index += 1
            skipSpace()
            members.append(PositionedJSON.Member(key: key, value: try value(depth: depth + 1)))
            skipSpace()
            guard index < bytes.count else { throw error("the file ends inside an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members, line: at) }
            throw error("unexpected \(shown(bytes[index])) after the value of \"\(key)\"; expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(PositionedJSONError) -> PositionedJSON {
        let at = line
        index += 1
        var items: [PositionedJSON] = []
        skipSpace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items, line: at) }
        while true {
            skipSpace()
            items.append(try value(depth: depth + 1))
            skipSpace()
            guard index < bytes.count else { throw error("the file ends inside an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items, line: at) }
            throw error("unexpected \(shown(bytes[index])) in an array; expected ',' or ']'")
        }
    }

    mutating func literal(_ word: StaticString) throws(PositionedJSONError) {
        let expected = Array(UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("expected \(word)")
        }
        index += expected.count
    }

    mutating func number() throws(PositionedJSONError) -> Double {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digits() > 0 else { throw error("a number needs digits") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw error("a number needs digits after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw error("a number needs digits in its exponent") }
        }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
            throw error("the number is out of range")
        }
        return value
    }

    mutating func string() throws(PositionedJSONError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run = index
        func flush(_ upTo: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<upTo], as: UTF8.self).unicodeScalars) }
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                flush(index)
                index += 1
                return String(scalars)
            }
            if b < 0x20 { throw error("a control character inside a string (a line break must be written \\n)") }
            if b == UInt8(ascii: "\\") {
                flush(index)
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800..<0xDC00).contains(unit), index + 1 < bytes.count,
                       bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("an unpaired surrogate in \\u escapes") }
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(unit) else { throw error("an unpaired surrogate in \\u escapes") }
                    scalars.append(scalar)
                default: throw error("unknown escape \\\(shown(escape)) in a string")
                }
                run = index
                continue
            }
            index += 1
        }
        throw error("the file ends inside a string")
    }

    mutating func hex4() throws(PositionedJSONError) -> UInt32 {
        guard index + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw error("\\u needs four hexadecimal digits")
        }
        index += 4
        return v
    }

    func shown(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }
}
