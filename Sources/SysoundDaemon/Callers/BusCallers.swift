import Glibc
import Logging
import SysoundPlatform

/// Who each D-Bus sender is, proved from its process once per unique name
/// (the bus never gives a unique name to another connection) and forgotten
/// when the name leaves the bus. The bus tells the process:
/// `GetConnectionCredentials`' `ProcessFD` where the bus offers one
/// (dbus-broker; not Debian bookworm's dbus 1.14), else its `ProcessID`, which is opened as a pidfd at
/// once (docs/security.md says what that leaves open). Runs on the loop's thread.
package final class BusCallers {
    /// Past this many senders the oldest is forgotten (a sender whose
    /// leaving was missed must not be kept for ever).
    static let capacity = 1024
    private var identities: [String: SandboxIdentity] = [:]
    private var order: [String] = []
    private var watches: [String: BusSlot] = [:]
    private let logger: Logger
    /// Told when a sender is forgotten (it left).
    var onForget: ((String) -> Void)?

    package init(logger: Logger) { self.logger = logger }

    /// The sandbox of `sender`, read on its first call and cached.
    package func identity(of sender: String, on bus: Bus) -> SandboxIdentity {
        if let known = identities[sender] { return known }
        let identity = Self.read(sender, on: bus)
        if identity.isSandboxed { logger.info("\(sender) is \(identity)") }
        if identities.count >= Self.capacity, let oldest = order.first { forget(oldest) }
        identities[sender] = identity
        order.append(sender)
        do {
            watches[sender] = try bus.watchNameOwner(sender) { [weak self] _, new in
                if new.isEmpty { self?.forget(sender) }
            }
        } catch {
            logger.warning("cannot follow \(sender) leaving the bus (its identity stays cached until evicted): \(error)")
        }
        return identity
    }

    func forget(_ sender: String) {
        guard identities.removeValue(forKey: sender) != nil else { return }
        order.removeAll { $0 == sender }
        watches[sender] = nil
        onForget?(sender)
    }

    /// Everything, when the bus connection is lost (the names go with it).
    func forgetAll() {
        for sender in order { onForget?(sender) }
        identities = [:]
        order = []
        watches = [:]
    }

    /// Asks the bus for the sender's process and reads its sandbox. What
    /// cannot be told is `.unknown`, never the host.
    static func read(_ sender: String, on bus: Bus) -> SandboxIdentity {
        let credentials: [String: BusValue]
        let reply: BusMessage
        do {
            let ask = try bus.newMethodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetConnectionCredentials")
            try ask.append(sender)
            reply = try bus.call(ask)
            credentials = try reply.readVardict()
        } catch {
            return .unknown(reason: "the bus did not tell \(sender)'s process: \(error)")
        }
        let process: ProcessHandle
        do throws(SandboxError) {
            if let fd = credentials["ProcessFD"]?.unixFD {
                // The message owns its fd: a dup of it is ours.
                let own = fcntl(fd, F_DUPFD_CLOEXEC, 0)
                guard own >= 0 else { throw .system("cannot keep the bus's ProcessFD: \(String(cString: strerror(errno)))") }
                process = try ProcessHandle(adoptingPidfd: own)
            } else if let pid = credentials["ProcessID"]?.uint32 {
                process = try ProcessHandle(pid: pid_t(bitPattern: pid))
            } else {
                throw .system("the bus did not tell \(sender)'s process id")
            }
        } catch {
            return .unknown(reason: error.description)
        }
        withExtendedLifetime(reply) {}
        return SandboxProbe.identity(of: process)
    }
}
