import Glibc
import SysoundCore

/// rtkit (org.freedesktop.RealtimeKit1 on the system bus) as the broker that
/// makes a thread real-time where the process may not itself, as PulseAudio
/// and PipeWire ask it on desktops. rtkit grants SCHED_RR | SCHED_RESET_ON_FORK
/// up to its `MaxRealtimePriority` (20 by default) to a thread of the caller's
/// own process, and refuses a process whose RLIMIT_RTTIME hard limit is
/// unlimited or above its `RTTimeUSecMax` (200 000 µs by default); it also
/// limits each user to a burst of requests (25 in 20 s by default).
///
/// Calls are blocking (sd_bus_call with a 1 s timeout) on a private
/// system-bus connection opened at the first request: they run on the
/// engine's worker or at start-up, never on the daemon's loop. One request at
/// a time (sd-bus is not thread-safe); a connection that failed is dropped and
/// opened again at the next request.
package final class RealtimeKit: RealtimeBroker, @unchecked Sendable {
    // @unchecked: `bus` is only touched under `lock`.
    package let name = "rtkit"
    static let service = "org.freedesktop.RealtimeKit1"
    static let path = "/org/freedesktop/RealtimeKit1"
    static let interface = "org.freedesktop.RealtimeKit1"
    static let timeoutMicroseconds: UInt64 = 1_000_000

    private let address: Bus.Address
    private let lock = PthreadLock()
    private var bus: Bus?

    /// `address`: the system bus (DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket).
    package init(address: Bus.Address = .system) {
        self.address = address
    }

    package func limits() throws(RealtimeRefusal) -> RealtimeBrokerLimits {
        let priority = try property("MaxRealtimePriority")
        let rttime = try property("RTTimeUSecMax")
        guard priority >= 0, rttime > 0 else {
            throw RealtimeRefusal("MaxRealtimePriority \(priority), RTTimeUSecMax \(rttime): nothing it can grant")
        }
        return RealtimeBrokerLimits(maxPriority: Int32(clamping: priority), maxRealtimeMicroseconds: UInt64(rttime))
    }

    package func makeRealtime(thread tid: pid_t, priority: Int32) throws(RealtimeRefusal) {
        _ = try call("MakeThreadRealtime") { m throws(BusError) in
            try m.append(UInt64(tid))
            try m.append(UInt32(priority))
        }
    }

    /// An integer property (org.freedesktop.DBus.Properties.Get); rtkit's are `i` and `x`.
    private func property(_ name: String) throws(RealtimeRefusal) -> Int64 {
        let reply = try call("Get", interface: Bus.properties) { m throws(BusError) in
            try m.append(Self.interface)
            try m.append(name)
        }
        let value: BusValue?
        do { value = try reply.readValue()?.unwrapped } catch { throw RealtimeRefusal("reading its \(name): \(error.message)") }
        switch value {
        case .int32(let v): return Int64(v)
        case .int64(let v): return v
        case .uint32(let v): return Int64(v)
        case let other: throw RealtimeRefusal("its \(name) is \(other.map { "\($0)" } ?? "missing"), not an integer")
        }
    }

    private func call(
        _ member: String, interface: String = RealtimeKit.interface, _ fill: (BusMessage) throws(BusError) -> Void
    ) throws(RealtimeRefusal) -> BusMessage {
        lock.lock()
        defer { lock.unlock() }
        do throws(BusError) {
            let bus: Bus
            if let open = self.bus { bus = open } else { bus = try Bus.open(address) }
            self.bus = bus
            let m = try bus.newMethodCall(destination: Self.service, path: Self.path, interface: interface, member: member)
            try fill(m)
            do throws(BusError) {
                return try bus.call(m, timeout: Self.timeoutMicroseconds)
            } catch {
                // A reply of rtkit's own keeps the connection; a broken connection does not.
                if !bus.isOpen { self.bus = nil }
                throw error
            }
        } catch {
            throw RealtimeRefusal("\(member): \(error.name == BusError.failed ? error.message : "\(error.name): \(error.message)")")
        }
    }
}
