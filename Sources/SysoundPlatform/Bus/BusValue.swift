/// A D-Bus value with its type: what a variant holds, or any argument read
/// without knowing its signature in advance. Arrays and dictionaries carry
/// their element signature so that an empty one still has a type.
package indirect enum BusValue: Equatable, Sendable, CustomStringConvertible {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case variant(BusValue)
    case array(element: String, [BusValue])
    /// `a{kv}`: the key and value signatures, and the entries in wire order.
    case dictionary(key: String, value: String, [DictionaryEntry])
    case structure([BusValue])
    /// `h`: a file descriptor the message carries. The number is the
    /// message's own (sd-bus closes it with the message): valid only while
    /// the message that was read lives; `dup` it to keep it.
    case unixFD(Int32)

    package struct DictionaryEntry: Equatable, Sendable {
        package var key: BusValue
        package var value: BusValue
        package init(_ key: BusValue, _ value: BusValue) { self.key = key; self.value = value }
    }

    /// The value's D-Bus signature.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .variant: "v"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .unixFD: "h"
        }
    }

    /// `a{sv}`, the shape of hints, options and PropertiesChanged.
    package static func vardict(_ entries: [(String, BusValue)]) -> BusValue {
        .dictionary(key: "s", value: "v", entries.map { DictionaryEntry(.string($0.0), .variant($0.1)) })
    }

    /// An `a{sv}` read back as a Swift dictionary (variants unwrapped); nil for any other shape.
    package var vardict: [String: BusValue]? {
        guard case .dictionary("s", "v", let entries) = self else { return nil }
        var result: [String: BusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else { return nil }
            result[key] = value
        }
        return result
    }

    package var string: String? { if case .string(let v) = self { v } else { nil } }
    package var bool: Bool? { if case .bool(let v) = self { v } else { nil } }
    package var uint32: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    package var int32: Int32? { if case .int32(let v) = self { v } else { nil } }
    package var double: Double? { if case .double(let v) = self { v } else { nil } }
    package var unixFD: Int32? { if case .unixFD(let v) = self { v } else { nil } }
    /// The value inside a variant (a plain value is returned as is).
    package var unwrapped: BusValue { if case .variant(let v) = self { v.unwrapped } else { self } }

    package var description: String {
        switch self {
        case .byte(let v): "\(v)"
        case .bool(let v): "\(v)"
        case .int16(let v): "\(v)"
        case .uint16(let v): "\(v)"
        case .int32(let v): "\(v)"
        case .uint32(let v): "\(v)"
        case .int64(let v): "\(v)"
        case .uint64(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v), .objectPath(let v), .signature(let v): "\"\(v)\""
        case .variant(let v): "<\(v)>"
        case .array(_, let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries): "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .unixFD(let fd): "fd \(fd)"
        }
    }
}
