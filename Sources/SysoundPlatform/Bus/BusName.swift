import CSystemd

/// Owning a well-known name: the request (sd_bus_request_name_async) and
/// the bus's later word on it (NameAcquired / NameLost). With `queue`, a
/// name someone else holds is waited for: the bus hands it over when the
/// owner leaves, and `state` says which of these we are in.
package final class BusName: @unchecked Sendable {
    package enum State: String, Sendable, Equatable {
        /// Asked, no answer yet.
        case requesting
        /// We own the name.
        case owner
        /// Someone else owns it; we are in its queue.
        case queued
        /// Someone else owns it and we did not queue (or were removed from the queue).
        case taken
        /// We owned it and lost it (replaced, or released).
        case lost
        /// The request failed (e.g. the bus policy refused it).
        case failed
    }

    package struct Flags: OptionSet, Sendable {
        package let rawValue: UInt64
        package init(rawValue: UInt64) { self.rawValue = rawValue }
        /// Take the name from an owner that allows replacement (SD_BUS_NAME_REPLACE_EXISTING).
        package static let replaceExisting = Flags(rawValue: UInt64(SD_BUS_NAME_REPLACE_EXISTING))
        /// Let a later requester with replaceExisting take it from us (SD_BUS_NAME_ALLOW_REPLACEMENT).
        package static let allowReplacement = Flags(rawValue: UInt64(SD_BUS_NAME_ALLOW_REPLACEMENT))
        /// Wait in line when the name is taken (SD_BUS_NAME_QUEUE).
        package static let queue = Flags(rawValue: UInt64(SD_BUS_NAME_QUEUE))
    }

    package let name: String
    package private(set) var state: State = .requesting
    /// The owner when it is not us (":1.7"), as last seen.
    package private(set) var owner: String?
    private var slots: [BusSlot] = []
    private let changed: (State) -> Void

    /// Requests `name` on `bus`; `changed` runs on the loop at every change of `state`.
    package init(_ name: String, on bus: Bus, flags: Flags, changed: @escaping (State) -> Void = { _ in }) throws(BusError) {
        self.name = name
        self.changed = changed
        // The matches go first so that no NameAcquired after the reply is missed.
        slots.append(try bus.matchSignal(sender: Bus.daemon, interface: Bus.daemon, member: "NameAcquired", arg0: name) { [weak self] _ in
            self?.set(.owner)
        })
        slots.append(try bus.matchSignal(sender: Bus.daemon, interface: Bus.daemon, member: "NameLost", arg0: name) { [weak self] _ in
            self?.set(.lost)
        })
        slots.append(try bus.watchNameOwner(name) { [weak self] _, new in
            guard let self else { return }
            self.owner = new.isEmpty ? nil : new
        })
        let body: MessageBody = { [weak self] m in
            guard let self else { return }
            if m.error != nil { return self.set(.failed) }
            // RequestName's answer (the D-Bus specification's codes).
            // An answer without a code is taken as a refusal (the default case).
            switch (try? m.readUInt32()) ?? 0 {
            case 1, 4: self.set(.owner)
            case 2: self.set(.queued)
            case 3: self.set(.taken)
            default: self.set(.failed)
            }
        }
        slots.append(try BusSlot.make(body, call: "sd_bus_request_name_async") { slot, userdata in
            sd_bus_request_name_async(bus.pointer, slot, name, flags.rawValue, messageTrampoline, userdata)
        })
    }

    private func set(_ new: State) {
        // A NameAcquired may arrive before the RequestName reply that says "owner": report once.
        guard new != state else { return }
        // NameLost while queued: the bus removed us from the queue (the owner forbade replacement).
        state = new
        changed(new)
    }
}
