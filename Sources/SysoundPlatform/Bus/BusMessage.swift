import Glibc
import CSystemd

/// One sd_bus_message (a call, reply, error or signal), reference-counted
/// with sd_bus_message_ref/unref. Arguments are appended and read one basic
/// value or container at a time (sd_bus_message_append_basic/read_basic,
/// open/close_container, enter/exit_container): the variadic sd_bus_message_append
/// and sd_bus_message_read do not import into Swift.
package final class BusMessage: @unchecked Sendable {
    package let pointer: OpaquePointer

    /// Takes over a reference the caller owns (a message just created).
    init(adopting pointer: OpaquePointer) { self.pointer = pointer }

    /// Adds a reference (a message sd-bus lends to a callback).
    package init(retaining pointer: OpaquePointer) {
        self.pointer = pointer
        sd_bus_message_ref(pointer)
    }

    deinit { sd_bus_message_unref(pointer) }

    // MARK: Header

    package var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }
    package var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }
    package var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }
    /// The sender's unique name (":1.42"), set by the bus on incoming messages.
    package var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }
    package var destination: String? { sd_bus_message_get_destination(pointer).map { String(cString: $0) } }
    /// The signature of the whole body.
    package var signature: String { sd_bus_message_get_signature(pointer, 1).map { String(cString: $0) } ?? "" }
    package var isError: Bool { sd_bus_message_is_method_error(pointer, nil) > 0 }
    /// The error a reply carries, nil for a method return.
    package var error: BusError? {
        guard isError, let error = sd_bus_message_get_error(pointer) else { return nil }
        return BusError(error, returned: sd_bus_message_get_errno(pointer))
    }

    /// The sender's effective uid, asked of the bus (sd_bus_query_sender_creds);
    /// nil when the bus cannot tell.
    package func senderUID() -> uid_t? {
        var creds: OpaquePointer? = nil
        guard sd_bus_query_sender_creds(pointer, UInt64(SD_BUS_CREDS_EUID), &creds) >= 0, let creds else { return nil }
        defer { sd_bus_creds_unref(creds) }
        var uid: uid_t = 0
        return sd_bus_creds_get_euid(creds, &uid) >= 0 ? uid : nil
    }

    package func isSignal(interface: String, member: String) -> Bool {
        sd_bus_message_is_signal(pointer, interface, member) > 0
    }

    // MARK: Appending

    package func append(_ value: String) throws(BusError) { try appendString(value, type: "s") }
    package func append(_ value: Bool) throws(BusError) {
        var v: Int32 = value ? 1 : 0
        try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "b")), &v), "sd_bus_message_append_basic")
    }
    package func append(_ value: UInt32) throws(BusError) { try appendBasic(value, "u") }
    package func append(_ value: Int32) throws(BusError) { try appendBasic(value, "i") }
    package func append(_ value: Double) throws(BusError) { try appendBasic(value, "d") }
    package func append(_ value: UInt64) throws(BusError) { try appendBasic(value, "t") }
    package func append(_ value: Int64) throws(BusError) { try appendBasic(value, "x") }

    /// Appends any value (containers recursively).
    package func append(_ value: BusValue) throws(BusError) {
        switch value {
        case .byte(let v): try appendBasic(v, "y")
        case .bool(let v): try append(v)
        case .int16(let v): try appendBasic(v, "n")
        case .uint16(let v): try appendBasic(v, "q")
        case .int32(let v): try appendBasic(v, "i")
        case .uint32(let v): try appendBasic(v, "u")
        case .int64(let v): try appendBasic(v, "x")
        case .uint64(let v): try appendBasic(v, "t")
        case .double(let v): try appendBasic(v, "d")
        case .string(let v): try appendString(v, type: "s")
        case .objectPath(let v): try appendString(v, type: "o")
        case .signature(let v): try appendString(v, type: "g")
        case .variant(let inner):
            try container("v", inner.signature) { () throws(BusError) in try append(inner) }
        case .array(let element, let items):
            try container("a", element) { () throws(BusError) in
                for item in items { try append(item) }
            }
        case .dictionary(let key, let valueType, let entries):
            try container("a", "{" + key + valueType + "}") { () throws(BusError) in
                for entry in entries {
                    try container("e", key + valueType) { () throws(BusError) in
                        try append(entry.key)
                        try append(entry.value)
                    }
                }
            }
        case .structure(let fields):
            try container("r", fields.map(\.signature).joined()) { () throws(BusError) in
                for field in fields { try append(field) }
            }
        case .unixFD(let fd): try appendBasic(fd, "h")  // sd-bus sends a dup of it
        }
    }

    /// sd_bus_message_open_container … close_container around `body`.
    /// `type` is "a", "v", "r" or "e"; `contents` the signature inside.
    package func container(_ type: Character, _ contents: String, _ body: () throws(BusError) -> Void) throws(BusError) {
        try check(sd_bus_message_open_container(pointer, typeCode(type), contents), "sd_bus_message_open_container")
        try body()
        try check(sd_bus_message_close_container(pointer), "sd_bus_message_close_container")
    }

    private func appendBasic<T: BitwiseCopyable>(_ value: T, _ type: Character) throws(BusError) {
        var v = value
        try check(sd_bus_message_append_basic(pointer, typeCode(type), &v), "sd_bus_message_append_basic")
    }

    private func appendString(_ value: String, type: Character) throws(BusError) {
        // A C string ends at the first NUL: refuse rather than send a shorter one.
        if value.utf8.contains(0) { throw .invalidArgs("a D-Bus string cannot contain NUL") }
        try check(sd_bus_message_append_basic(pointer, typeCode(type), value), "sd_bus_message_append_basic")
    }

    // MARK: Reading

    /// The type of the next argument and, for a container, its contents'
    /// signature; nil at the end of the current container (sd_bus_message_peek_type).
    package func peekType() throws(BusError) -> (type: Character, contents: String?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>? = nil
        let r = try check(sd_bus_message_peek_type(pointer, &type, &contents), "sd_bus_message_peek_type")
        if r == 0 { return nil }
        return (Character(UnicodeScalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) })
    }

    package func readString() throws(BusError) -> String { try readStringLike("s") }
    package func readObjectPath() throws(BusError) -> String { try readStringLike("o") }
    package func readBool() throws(BusError) -> Bool { try readBasic(Int32.self, "b") != 0 }
    package func readUInt32() throws(BusError) -> UInt32 { try readBasic(UInt32.self, "u") }
    package func readInt32() throws(BusError) -> Int32 { try readBasic(Int32.self, "i") }
    package func readDouble() throws(BusError) -> Double { try readBasic(Double.self, "d") }

    /// Reads the next argument whatever its type; nil at the end of the current container.
    package func readValue() throws(BusError) -> BusValue? {
        guard let (type, contents) = try peekType() else { return nil }
        switch type {
        case "y": return .byte(try readBasic(UInt8.self, "y"))
        case "b": return .bool(try readBool())
        case "n": return .int16(try readBasic(Int16.self, "n"))
        case "q": return .uint16(try readBasic(UInt16.self, "q"))
        case "i": return .int32(try readInt32())
        case "u": return .uint32(try readUInt32())
        case "x": return .int64(try readBasic(Int64.self, "x"))
        case "t": return .uint64(try readBasic(UInt64.self, "t"))
        case "d": return .double(try readDouble())
        case "s": return .string(try readString())
        case "o": return .objectPath(try readObjectPath())
        case "g": return .signature(try readStringLike("g"))
        case "v":
            let inner = contents ?? ""
            return try entered("v", inner) { () throws(BusError) -> BusValue in
                guard let value = try readValue() else { throw .invalidArgs("empty variant") }
                return .variant(value)
            }
        case "r":
            return try entered("r", contents ?? "") { () throws(BusError) -> BusValue in .structure(try readAll()) }
        case "a":
            let element = contents ?? ""
            if element.hasPrefix("{") {
                let inner = String(element.dropFirst().dropLast())
                let (key, value) = Self.splitEntry(inner)
                return try entered("a", element) { () throws(BusError) -> BusValue in
                    var entries: [BusValue.DictionaryEntry] = []
                    while let (_, _) = try peekType() {
                        let fields = try entered("e", inner) { () throws(BusError) in try readAll() }
                        guard fields.count == 2 else { throw .invalidArgs("malformed dictionary entry") }
                        entries.append(.init(fields[0], fields[1]))
                    }
                    return .dictionary(key: key, value: value, entries)
                }
            }
            return try entered("a", element) { () throws(BusError) -> BusValue in .array(element: element, try readAll()) }
        case "h": return .unixFD(try readBasic(Int32.self, "h"))
        default:
            // Anything newer: skipped, not misread.
            try skip(String(type))
            return .structure([])
        }
    }

    /// Reads every remaining argument of the current container.
    package func readAll() throws(BusError) -> [BusValue] {
        var values: [BusValue] = []
        while let value = try readValue() { values.append(value) }
        return values
    }

    /// Reads an `a{sv}` argument; each value stays as it was sent, so a
    /// caller can tell a wrong type from a missing key.
    package func readVardict() throws(BusError) -> [String: BusValue] {
        guard let value = try readValue(), let dict = value.vardict else { throw .invalidArgs("expected a{sv}") }
        return dict
    }

    /// sd_bus_message_enter_container … exit_container around `body`.
    package func entered<T>(_ type: Character, _ contents: String, _ body: () throws(BusError) -> T) throws(BusError) -> T {
        let r = try check(sd_bus_message_enter_container(pointer, typeCode(type), contents), "sd_bus_message_enter_container")
        if r == 0 { throw .invalidArgs("expected a container of type \(type)\(contents)") }
        let value = try body()
        try check(sd_bus_message_exit_container(pointer), "sd_bus_message_exit_container")
        return value
    }

    /// Skips arguments of the given signature (sd_bus_message_skip).
    package func skip(_ types: String) throws(BusError) {
        try check(sd_bus_message_skip(pointer, types), "sd_bus_message_skip")
    }

    /// Back to the first argument (sd_bus_message_rewind).
    package func rewind() throws(BusError) {
        try check(sd_bus_message_rewind(pointer, 1), "sd_bus_message_rewind")
    }

    private func readBasic<T: BinaryInteger & BitwiseCopyable>(_: T.Type, _ type: Character) throws(BusError) -> T {
        var value: T = 0
        let r = try check(sd_bus_message_read_basic(pointer, typeCode(type), &value), "sd_bus_message_read_basic")
        if r == 0 { throw .invalidArgs("missing argument of type \(type)") }
        return value
    }

    private func readBasic(_: Double.Type, _ type: Character) throws(BusError) -> Double {
        var value: Double = 0
        let r = try check(sd_bus_message_read_basic(pointer, typeCode(type), &value), "sd_bus_message_read_basic")
        if r == 0 { throw .invalidArgs("missing argument of type \(type)") }
        return value
    }

    private func readStringLike(_ type: Character) throws(BusError) -> String {
        var value: UnsafePointer<CChar>? = nil
        let r = try check(sd_bus_message_read_basic(pointer, typeCode(type), &value), "sd_bus_message_read_basic")
        guard r > 0, let value else { throw .invalidArgs("missing argument of type \(type)") }
        return String(cString: value)
    }

    /// Splits a dict entry's inner signature into key (always one basic type) and value.
    static func splitEntry(_ inner: String) -> (String, String) {
        guard let first = inner.first else { return ("", "") }
        return (String(first), String(inner.dropFirst()))
    }
}

func typeCode(_ type: Character) -> CChar { CChar(bitPattern: type.asciiValue ?? 0) }
