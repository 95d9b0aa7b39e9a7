import Logging
import SysoundPlatform

/// The screensaver interfaces on the session bus, for desktops whose locker
/// does not set logind's `LockedHint`: `ActiveChanged(b)` and `GetActive` of
/// `org.freedesktop.ScreenSaver` and of `org.gnome.ScreenSaver`.
///
/// Each service is followed while it owns its name: read when it appears,
/// then every `ActiveChanged`. A service that is not there is one log line,
/// as is losing the session bus (`BusFollower`); the connection comes back by itself.
package final class ScreensaverLockSource {
    package struct Service: Sendable, Equatable {
        package var name: String
        package var path: String
        package var interface: String { name }

        package static let freedesktop = Service(name: "org.freedesktop.ScreenSaver", path: "/org/freedesktop/ScreenSaver")
        package static let gnome = Service(name: "org.gnome.ScreenSaver", path: "/org/gnome/ScreenSaver")
    }

    private let services: [Service]
    private let follower: LockFollower
    private let logger: Logger
    private var bus: BusFollower!
    private var slots: [BusSlot] = []
    private var present: Set<String> = []

    /// Follows `services` on the session bus, dispatched by `loop`: on
    /// `sessionBus` if the daemon shares its connection,
    /// else on a connection of its own to `address`.
    package init(
        loop: EventLoop, services: [Service] = [.freedesktop, .gnome],
        sessionBus: BusConnection? = nil, bus address: Bus.Address = .user,
        follower: LockFollower, logger: Logger
    ) {
        self.services = services
        self.follower = follower
        self.logger = logger
        bus = BusFollower(
            shared: sessionBus, address: address, loop: loop, busName: "session bus",
            wording: .init(
                meanwhile: "the screensaver lock is not followed", untilItAppears: "the screensaver lock is not followed until one appears",
                again: "following the screensavers again"),
            logger: logger,
            connected: { [unowned self] bus in connected(bus) },
            lost: { [unowned self] in
                slots = []
                present = []
            })
    }

    /// Connects now; call on the loop's thread.
    package func start() { bus.start() }

    package func stop() { bus.stop() }

    private func connected(_ bus: Bus) {
        slots = []
        for service in services {
            do {
                // Subscribe before reading, so no change falls in between.
                slots.append(try bus.matchSignal(path: service.path, interface: service.interface, member: "ActiveChanged") { [unowned self] m in
                    // A signal without a boolean is not one the interface sends: dropped, the next one counts.
                    guard let active = try? m.readBool() else { return }
                    report(active, service)
                })
                slots.append(try bus.watchNameOwner(service.name) { [unowned self] _, new in
                    if new.isEmpty {
                        present.remove(service.name)
                        logger.notice("\(service.name) left the session bus; the lock stays as it is")
                    } else {
                        readActive(service, on: bus)
                    }
                })
            } catch {
                logger.error("cannot follow \(service.name): \(error)")
                continue
            }
            readActive(service, on: bus)
        }
    }

    private func readActive(_ service: Service, on bus: Bus) {
        do {
            let call = try bus.newMethodCall(destination: service.name, path: service.path, interface: service.interface, member: "GetActive")
            try bus.callAsync(call) { [unowned self] result in
                switch result {
                case .success(let reply):
                    guard let active = try? reply.readBool() else {
                        return logger.warning("\(service.name).GetActive answered \(reply.signature), not a boolean; ignored")
                    }
                    if present.insert(service.name).inserted { logger.info("following \(service.name)") }
                    report(active, service)
                case .failure(let error) where error.name == BusError.serviceUnknown || error.name == BusError.nameHasNoOwner:
                    logger.info("\(service.name) is not on the session bus; followed when it appears")
                case .failure(let error):
                    logger.warning("\(service.name).GetActive failed: \(error)")
                }
            }
        } catch {
            logger.error("cannot ask \(service.name): \(error)")
        }
    }

    private func report(_ active: Bool, _ service: Service) {
        follower.report(active, source: service.name, origin: service.name)
    }
}
