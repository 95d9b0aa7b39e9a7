import Glibc
import CSysoundBus
import CSystemd

/// An interface a process serves: its methods, properties and signals,
/// declared in one place and registered as one sd-bus vtable
/// (sd_bus_add_object_vtable). sd-bus checks each call's signature against
/// the declaration (a wrong one gets InvalidArgs without reaching the handler)
/// and answers Introspect and org.freedesktop.DBus.Properties itself.
package struct BusInterface {
    package let name: String
    var methods: [Method] = []
    var properties: [Property] = []
    var signals: [Signal] = []

    package init(_ name: String) { self.name = name }

    package typealias MethodHandler = (BusMethodCall) throws -> Void
    /// Appends the property's value to the reply.
    package typealias Getter = (BusMessage) throws -> Void
    /// Reads the new value from the message.
    package typealias Setter = (BusMessage) throws -> Void

    struct Method {
        var name, signature, result: String
        var names: [String]
        var handler: MethodHandler
    }

    struct Property {
        var name, signature: String
        var get: Getter
        var set: Setter?
        var emitsChange: Bool
    }

    struct Signal {
        var name, signature: String
        var names: [String]
    }

    /// A method taking `signature` (argument names `arguments`) and returning
    /// `result` (names `results`), as in the introspection XML.
    package mutating func method(
        _ name: String, _ signature: String, arguments: [String] = [], result: String = "", results: [String] = [],
        handler: @escaping MethodHandler
    ) {
        methods.append(Method(name: name, signature: signature, result: result, names: arguments + results, handler: handler))
    }

    package mutating func property(_ name: String, _ signature: String, emitsChange: Bool = true, get: @escaping Getter, set: Setter? = nil) {
        properties.append(Property(name: name, signature: signature, get: get, set: set, emitsChange: emitsChange))
    }

    package mutating func signal(_ name: String, _ signature: String, arguments: [String] = []) {
        signals.append(Signal(name: name, signature: signature, names: arguments))
    }
}

/// An incoming method call. The handler reads the arguments from `message`
/// and answers with `reply`; throwing a BusError answers with that error
/// instead (any other error becomes org.freedesktop.DBus.Error.Failed).
package struct BusMethodCall: Sendable {
    package let message: BusMessage

    /// The call `message` is, for a reply sent later (after the handler
    /// returned: sd-bus keeps the call pending until it is answered).
    package static func replying(to message: BusMessage) -> BusMethodCall { BusMethodCall(message: message) }

    /// Sends the method return, its values appended by `build`
    /// (sd_bus_message_new_method_return, sd_bus_message_send).
    package func reply(_ build: (BusMessage) throws -> Void = { _ in }) throws {
        var m: OpaquePointer? = nil
        try check(sd_bus_message_new_method_return(message.pointer, &m), "sd_bus_message_new_method_return")
        let reply = BusMessage(adopting: m!)
        try build(reply)
        try check(sd_bus_message_send(reply.pointer), "sd_bus_message_send")
    }
}

/// The handlers of one registered interface: what the vtable's userdata points at.
final class InterfaceHandlers {
    let interface: BusInterface
    let vtable: OpaquePointer  // csb_vtable*
    init(_ interface: BusInterface, vtable: OpaquePointer) {
        self.interface = interface
        self.vtable = vtable
    }
    deinit { csb_vtable_free(vtable) }

    func method(_ name: String) -> BusInterface.Method? { interface.methods.first { $0.name == name } }
    func property(_ name: String) -> BusInterface.Property? { interface.properties.first { $0.name == name } }
}

private func handlers(_ userdata: UnsafeMutableRawPointer?) -> InterfaceHandlers? {
    CallbackBox<InterfaceHandlers>.from(userdata)
}

private let methodTrampoline: sd_bus_message_handler_t = { message, userdata, ret in
    guard let message, let handlers = handlers(userdata) else { return 0 }
    let call = BusMethodCall(message: BusMessage(retaining: message))
    guard let member = call.message.member, let method = handlers.method(member) else {
        return BusError(name: BusError.unknownMethod, message: "no such method").set(on: ret)
    }
    do {
        try method.handler(call)
        return 1
    } catch {
        return BusError.replying(to: error).set(on: ret)
    }
}

private let getTrampoline: sd_bus_property_get_t = { _, _, _, property, reply, userdata, ret in
    guard let property, let reply, let handlers = handlers(userdata),
        let entry = handlers.property(String(cString: property))
    else { return -EINVAL }
    do {
        try entry.get(BusMessage(retaining: reply))
        return 1
    } catch {
        return BusError.replying(to: error).set(on: ret)
    }
}

private let setTrampoline: sd_bus_property_set_t = { _, _, _, property, value, userdata, ret in
    guard let property, let value, let handlers = handlers(userdata),
        let entry = handlers.property(String(cString: property)), let set = entry.set
    else { return -EINVAL }
    do {
        try set(BusMessage(retaining: value))
        return 1
    } catch {
        return BusError.replying(to: error).set(on: ret)
    }
}

extension Bus {
    /// Serves `interface` at `path` until the returned slot is dropped.
    package func export(_ interface: BusInterface, at path: String) throws(BusError) -> BusSlot {
        guard let vtable = csb_vtable_new(0) else { throw BusError(call: "csb_vtable_new", returned: -ENOMEM) }
        let handlers = InterfaceHandlers(interface, vtable: vtable)
        for method in interface.methods {
            let names = Self.names(method.names)
            let r = names.withUnsafeBufferPointer { buffer in
                csb_vtable_add_method(
                    vtable, method.name, method.signature, method.result, buffer.baseAddress, buffer.count,
                    methodTrampoline, 0)
            }
            try check(r, "csb_vtable_add_method")
        }
        for signal in interface.signals {
            let names = Self.names(signal.names)
            let r = names.withUnsafeBufferPointer { buffer in
                csb_vtable_add_signal(vtable, signal.name, signal.signature, buffer.baseAddress, buffer.count, 0)
            }
            try check(r, "csb_vtable_add_signal")
        }
        for property in interface.properties {
            let flags = UInt64(property.emitsChange ? SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE : 0)
            let r = csb_vtable_add_property(
                vtable, property.name, property.signature, getTrampoline, property.set == nil ? nil : setTrampoline, flags)
            try check(r, "csb_vtable_add_property")
        }
        return try BusSlot.make(handlers, call: "sd_bus_add_object_vtable") { slot, userdata in
            sd_bus_add_object_vtable(pointer, slot, path, interface.name, csb_vtable_entries(vtable), userdata)
        }
    }

    /// SD_BUS_PARAM's format: each name followed by a NUL; empty when unnamed.
    static func names(_ names: [String]) -> [CChar] {
        names.flatMap { $0.utf8CString }
    }
}
