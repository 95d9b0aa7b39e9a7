import Glibc
import CSystemd

/// What sd-bus calls back into: a Swift closure kept alive by the slot that
/// registered it. The box is passed to C retained (Unmanaged) and released
/// by the slot's destroy callback, whenever sd-bus frees the slot: when its
/// owner drops it, or (floating slots) when the bus is done with it.
final class CallbackBox<Body> {
    let body: Body
    init(_ body: Body) { self.body = body }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> Body? {
        guard let userdata else { return nil }
        return Unmanaged<CallbackBox<Body>>.fromOpaque(userdata).takeUnretainedValue().body
    }
}

typealias MessageBody = (BusMessage) -> Void

/// The one trampoline for every sd_bus_message_handler_t (replies, matches, filters).
let messageTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let body = CallbackBox<MessageBody>.from(userdata) else { return 0 }
    body(BusMessage(retaining: message))
    return 0  // never consumes: other matches and filters still see the message
}

let releaseBox: sd_bus_destroy_t = { userdata in
    guard let userdata else { return }
    Unmanaged<AnyObject>.fromOpaque(userdata).release()
}

/// A registration with the bus (object, match, filter, pending call, name
/// request), alive as long as this value: dropping it, or `cancel()`,
/// unregisters (sd_bus_slot_unref).
package final class BusSlot: @unchecked Sendable {
    private var pointer: OpaquePointer?

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// Registers with `register(&slot, userdata)`, passing `box` retained as
    /// userdata and releasing it when sd-bus frees the slot.
    static func make<Body>(
        _ body: Body, call: StaticString,
        _ register: (UnsafeMutablePointer<OpaquePointer?>, UnsafeMutableRawPointer) -> Int32
    ) throws(BusError) -> BusSlot {
        let userdata = Unmanaged.passRetained(CallbackBox(body) as AnyObject).toOpaque()
        var slot: OpaquePointer? = nil
        let r = register(&slot, userdata)
        guard r >= 0, let slot else {
            Unmanaged<AnyObject>.fromOpaque(userdata).release()
            throw BusError(call: "\(call)", returned: r < 0 ? r : -EINVAL)
        }
        sd_bus_slot_set_destroy_callback(slot, releaseBox)
        return BusSlot(slot)
    }

    /// Hands the slot to the bus: it lives until its work is done (a reply
    /// arrived) or the bus goes away (sd_bus_slot_set_floating).
    package func float() {
        guard let pointer else { return }
        sd_bus_slot_set_floating(pointer, 1)
        sd_bus_slot_unref(pointer)
        self.pointer = nil
    }

    package func cancel() {
        guard let pointer else { return }
        self.pointer = nil
        sd_bus_slot_unref(pointer)
    }

    deinit { cancel() }
}
