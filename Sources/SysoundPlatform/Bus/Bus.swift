import CSystemd
import Glibc

/// One connection to a message bus (sd_bus). Not thread-safe, as sd-bus is
/// not: a bus belongs to the thread that runs the sd-event loop it is
/// attached to, and every call on it and every callback happens there.
package final class Bus: @unchecked Sendable {
    package let pointer: OpaquePointer

    package enum Address: Sendable, Equatable {
        /// The user's session bus (DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus).
        case user
        /// The system bus (DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket).
        case system
        /// A bus address such as "unix:path=/tmp/x/session.sock".
        case address(String)
    }

    /// Calls awaiting their reply, by call number. Kept here, not floating in
    /// sd-bus: a reply closure that captures this bus would otherwise keep it
    /// (and itself) alive for ever once no reply can come; `close` ends them.
    private var pending: [Int: BusSlot] = [:]
    private var lastCall = 0

    init(adopting pointer: OpaquePointer) { self.pointer = pointer }

    /// Connects (sd_bus_open_user / sd_bus_open_system / sd_bus_new + sd_bus_set_address + sd_bus_start).
    package static func open(_ address: Address) throws(BusError) -> Bus {
        var bus: OpaquePointer? = nil
        switch address {
        case .user: try check(sd_bus_open_user(&bus), "sd_bus_open_user")
        case .system: try check(sd_bus_open_system(&bus), "sd_bus_open_system")
        case .address(let text):
            try check(sd_bus_new(&bus), "sd_bus_new")
            guard let created = bus else { throw BusError(call: "sd_bus_new", returned: -ENOMEM) }
            let b = Bus(adopting: created)
            try check(sd_bus_set_address(created, text), "sd_bus_set_address")
            try check(sd_bus_set_bus_client(created, 1), "sd_bus_set_bus_client")
            try check(sd_bus_start(created), "sd_bus_start")
            return b
        }
        guard let bus else { throw BusError(call: "sd_bus_open", returned: -ENOMEM) }
        return Bus(adopting: bus)
    }

    deinit {
        sd_bus_detach_event(pointer)
        sd_bus_flush_close_unref(pointer)
    }

    // MARK: Event loop

    /// Lets `loop` dispatch this bus (sd_bus_attach_event); callbacks then
    /// run on the loop's thread. The one place outside the loop's own module
    /// that needs its sd_event*: sd-bus registers its descriptor and timeouts
    /// there itself.
    package func attach(to loop: EventLoop, priority: Int32 = 0) throws(BusError) {
        try check(sd_bus_attach_event(pointer, loop.event, priority), "sd_bus_attach_event")
    }

    package func detachEvent() { sd_bus_detach_event(pointer) }

    /// Processes one pending message without an event loop (sd_bus_process);
    /// true when there may be more to do.
    @discardableResult
    package func process() throws(BusError) -> Bool {
        try check(sd_bus_process(pointer, nil), "sd_bus_process") > 0
    }

    /// Writes out queued messages (sd_bus_flush).
    package func flush() throws(BusError) { try check(sd_bus_flush(pointer), "sd_bus_flush") }

    // MARK: State

    /// Our unique name (":1.42"), once the bus has answered Hello.
    package var uniqueName: String? {
        var name: UnsafePointer<CChar>? = nil
        guard sd_bus_get_unique_name(pointer, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    /// False once the connection has closed (sd_bus_is_open).
    package var isOpen: Bool { sd_bus_is_open(pointer) > 0 }

    // MARK: Messages

    package func newMethodCall(destination: String?, path: String, interface: String?, member: String) throws(BusError) -> BusMessage {
        var m: OpaquePointer? = nil
        try check(sd_bus_message_new_method_call(pointer, &m, destination, path, interface, member), "sd_bus_message_new_method_call")
        return BusMessage(adopting: m!)
    }

    package func newSignal(path: String, interface: String, member: String) throws(BusError) -> BusMessage {
        var m: OpaquePointer? = nil
        try check(sd_bus_message_new_signal(pointer, &m, path, interface, member), "sd_bus_message_new_signal")
        return BusMessage(adopting: m!)
    }

    /// Queues a message for sending (sd_bus_send); the loop writes it out.
    package func send(_ message: BusMessage) throws(BusError) {
        try check(sd_bus_send(pointer, message.pointer, nil), "sd_bus_send")
    }

    /// Emits a signal whose arguments `build` appends.
    package func emitSignal(
        path: String, interface: String, member: String, _ build: (BusMessage) throws -> Void = { _ in }
    ) throws {
        let m = try newSignal(path: path, interface: interface, member: member)
        try build(m)
        try send(m)
    }

    /// Emits org.freedesktop.DBus.Properties.PropertiesChanged for `names`,
    /// their values read from the object's getters (sd_bus_emit_properties_changed_strv).
    package func emitPropertiesChanged(path: String, interface: String, names: [String]) throws(BusError) {
        var strings = names.map { strdup($0) } + [nil]
        defer { for s in strings { free(s) } }
        try check(sd_bus_emit_properties_changed_strv(pointer, path, interface, &strings), "sd_bus_emit_properties_changed_strv")
    }

    // MARK: Calling

    /// Sends a method call; `reply` runs on the loop with the reply or the
    /// error (a timeout, the peer gone, an error reply). `timeout` in µs, 0 = sd-bus's default (25 s).
    /// The call is floated: it completes even when the caller keeps no slot.
    package func callAsync(
        _ message: BusMessage, timeout: UInt64 = 0, reply: @escaping (Result<BusMessage, BusError>) -> Void
    ) throws(BusError) {
        lastCall += 1
        let call = lastCall
        // Unowned: sd-bus runs the callback only while this bus exists.
        let body: MessageBody = { [unowned self] m in
            pending[call] = nil  // sd-bus holds the slot until the callback returns
            if let error = m.error { reply(.failure(error)) } else { reply(.success(m)) }
        }
        pending[call] = try BusSlot.make(body, call: "sd_bus_call_async") { slot, userdata in
            sd_bus_call_async(pointer, slot, message.pointer, messageTrampoline, userdata, timeout)
        }
    }

    /// Closes the connection (sd_bus_close) and drops the calls still
    /// awaiting a reply, with whatever their closures hold. For the owner
    /// that lets go of a bus (stopped, or lost and replaced).
    package func close() {
        pending = [:]
        sd_bus_detach_event(pointer)
        sd_bus_close(pointer)
    }

    /// A blocking call (sd_bus_call): for clients and tests, never on the daemon's loop.
    package func call(_ message: BusMessage, timeout: UInt64 = 0) throws(BusError) -> BusMessage {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer? = nil
        let r = sd_bus_call(pointer, message.pointer, timeout, &error, &reply)
        if r < 0 { throw BusError(&error, call: "sd_bus_call", returned: r) }
        return BusMessage(adopting: reply!)
    }

    /// Reads a property asynchronously (org.freedesktop.DBus.Properties.Get).
    package func getProperty(
        destination: String, path: String, interface: String, name: String,
        reply: @escaping (Result<BusValue, BusError>) -> Void
    ) throws(BusError) {
        let m = try newMethodCall(destination: destination, path: path, interface: Self.properties, member: "Get")
        try m.append(interface)
        try m.append(name)
        try callAsync(m) { result in
            reply(result.flatMap { m in
                Result { () throws(BusError) -> BusValue in
                    guard let value = try m.readValue() else { throw .invalidArgs("empty Get reply") }
                    return value.unwrapped
                }
            })
        }
    }

    /// Sets a property asynchronously (org.freedesktop.DBus.Properties.Set).
    package func setProperty(
        destination: String, path: String, interface: String, name: String, value: BusValue,
        reply: @escaping (Result<Void, BusError>) -> Void = { _ in }
    ) throws(BusError) {
        let m = try newMethodCall(destination: destination, path: path, interface: Self.properties, member: "Set")
        try m.append(interface)
        try m.append(name)
        try m.append(.variant(value))
        try callAsync(m) { result in reply(result.map { _ in () }) }
    }

    // MARK: Matching

    /// Calls `handler` for every message matching `rule` (a D-Bus match rule),
    /// installed asynchronously (sd_bus_add_match_async).
    package func addMatch(_ rule: String, handler: @escaping (BusMessage) -> Void) throws(BusError) -> BusSlot {
        try BusSlot.make(handler as MessageBody, call: "sd_bus_add_match_async") { slot, userdata in
            sd_bus_add_match_async(pointer, slot, rule, messageTrampoline, nil, userdata)
        }
    }

    /// Matches a signal by any of sender, path, interface, member, and first argument.
    package func matchSignal(
        sender: String? = nil, path: String? = nil, interface: String? = nil, member: String? = nil,
        arg0: String? = nil, handler: @escaping (BusMessage) -> Void
    ) throws(BusError) -> BusSlot {
        var rule = ["type='signal'"]
        for (key, value) in [("sender", sender), ("path", path), ("interface", interface), ("member", member), ("arg0", arg0)] {
            if let value { rule.append("\(key)='\(value)'") }
        }
        return try addMatch(rule.joined(separator: ","), handler: handler)
    }

    /// Calls `handler(old, new)` when `name` changes owner (NameOwnerChanged;
    /// an empty string is "no owner"). For a unique name, new == "" means
    /// that client has left the bus.
    package func watchNameOwner(_ name: String, handler: @escaping (_ old: String, _ new: String) -> Void) throws(BusError) -> BusSlot {
        try matchSignal(
            sender: Self.daemon, path: "/org/freedesktop/DBus", interface: Self.daemon, member: "NameOwnerChanged", arg0: name
        ) { m in
            // The bus daemon sends three strings; anything else is not NameOwnerChanged.
            guard let _ = try? m.readString(), let old = try? m.readString(), let new = try? m.readString() else { return }
            handler(old, new)
        }
    }

    /// Calls `handler(interface, changed, invalidated)` on PropertiesChanged of `path`.
    package func watchPropertiesChanged(
        sender: String? = nil, path: String,
        handler: @escaping (_ interface: String, _ changed: [String: BusValue], _ invalidated: [String]) -> Void
    ) throws(BusError) -> BusSlot {
        try matchSignal(sender: sender, path: path, interface: Self.properties, member: "PropertiesChanged") { m in
            // (sa{sv}as) by the specification; another signature is not PropertiesChanged.
            guard let interface = try? m.readString(), let changed = try? m.readVardict(),
                case .array(_, let names)? = try? m.readValue()
            else { return }
            handler(interface, changed, names.compactMap(\.string))
        }
    }

    /// Calls `handler` once when the connection is lost (sd-bus's local
    /// Disconnected message, seen by a filter). The bus cannot be reused:
    /// open a new one (`BusConnection` does, with back-off).
    package func onDisconnect(_ handler: @escaping () -> Void) throws(BusError) -> BusSlot {
        let body: MessageBody = { m in
            if m.isSignal(interface: "org.freedesktop.DBus.Local", member: "Disconnected") { handler() }
        }
        return try BusSlot.make(body, call: "sd_bus_add_filter") { slot, userdata in
            sd_bus_add_filter(pointer, slot, messageTrampoline, userdata)
        }
    }

    static let daemon = "org.freedesktop.DBus"
    package static let properties = "org.freedesktop.DBus.Properties"
}
