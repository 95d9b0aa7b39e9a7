import Logging
import SysoundPlatform

/// KDE Plasma's do not disturb: plasmashell's `Inhibited` property of
/// org.freedesktop.Notifications (since 5.16). Read at start and whenever the
/// name gets a new owner, followed by PropertiesChanged; a server without
/// the property (GNOME Shell, dunst, mako) or no server is "not inhibited".
/// The same session-bus connection tells whether dconf's writer is there.
extension DesktopSources {
    static let notificationsName = "org.freedesktop.Notifications"
    static let notificationsPath = "/org/freedesktop/Notifications"
    static let dconfName = "ca.desrt.dconf"

    func startPlasma(on connection: BusConnection) {
        sessionBus = connection
        var seen = 0
        busUser = connection.addUser(connected: { [unowned self] bus in
            seen += 1
            connected(bus)
            // dconf's client lost its subscriptions with the old bus: new objects subscribe again.
            if seen > 1, glib != nil {
                openGSettings()
                publish()
            }
        }, disconnected: { [unowned self] _ in
            slots = []
            dconfWriter = false
            readings.plasmaInhibited = nil
            plasmaStatus = "no session bus"
            publish()
        })
        connection.start()
        if connection.bus == nil {
            logger.notice("no session bus (\(connection.lastError.map { "\($0)" } ?? "?")); Plasma's do not disturb is followed once it appears")
            publish()
        }
    }

    func stopPlasma() {
        slots = []
        if let busUser { sessionBus?.removeUser(busUser) }
        busUser = nil
        sessionBus = nil
    }

    private func connected(_ bus: Bus) {
        slots = []
        do {
            // Subscribed before reading, so no change falls in between.
            slots.append(try bus.watchPropertiesChanged(sender: Self.notificationsName, path: Self.notificationsPath) {
                [unowned self] interface, changed, invalidated in
                guard interface == Self.notificationsName else { return }
                if let value = changed["Inhibited"] {
                    inhibited(value.unwrapped.bool, on: bus)
                } else if invalidated.contains("Inhibited") {
                    readInhibited(on: bus)
                }
            })
            slots.append(try bus.watchNameOwner(Self.notificationsName) { [unowned self] _, new in
                if new.isEmpty {
                    readings.plasmaInhibited = nil
                    plasmaStatus = "no notification server"
                    publish()
                } else {
                    readInhibited(on: bus)
                }
            })
            slots.append(try bus.watchNameOwner(Self.dconfName) { [unowned self] _, new in
                dconfWriter = !new.isEmpty
            })
        } catch {
            plasmaStatus = "not followed: \(error)"
            logger.error("cannot follow \(Self.notificationsName): \(error)")
            return publish()
        }
        readInhibited(on: bus)
        findDconfWriter(on: bus)
    }

    private func readInhibited(on bus: Bus) {
        do {
            try bus.getProperty(destination: Self.notificationsName, path: Self.notificationsPath, interface: Self.notificationsName, name: "Inhibited") {
                [unowned self] result in
                switch result {
                case .success(let value):
                    inhibited(value.bool, on: bus)
                case .failure(let error) where error.name == BusError.serviceUnknown || error.name == BusError.nameHasNoOwner:
                    readings.plasmaInhibited = nil
                    plasmaStatus = "no notification server"
                    publish()
                case .failure(let error):
                    // GNOME Shell and others: no such property, so never inhibited.
                    readings.plasmaInhibited = nil
                    plasmaStatus = "the notification server has no Inhibited property (\(error.name))"
                    publish()
                }
            }
        } catch {
            logger.warning("cannot read \(Self.notificationsName) Inhibited: \(error)")
        }
    }

    private func inhibited(_ value: Bool?, on bus: Bus) {
        guard let value else {
            return logger.warning("\(Self.notificationsName) Inhibited is not a boolean; ignored")
        }
        if readings.plasmaInhibited != value { logger.info("Plasma's do not disturb is \(value ? "on" : "off")") }
        readings.plasmaInhibited = value
        plasmaStatus = value ? "true" : "false"
        publish()
    }

    /// dconf's writer runs, or the bus can start it (a desktop's session bus).
    private func findDconfWriter(on bus: Bus) {
        func ask(_ member: String, _ argument: String?, _ answer: @escaping (BusMessage) -> Bool) {
            // These fail only out of memory or on a closed bus: no dconf writer is
            // found, and Plasma's switches are then read, not written; a reconnect asks again.
            guard let call = try? bus.newMethodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: member)
            else { return }
            if let argument { try? call.append(argument) }
            try? bus.callAsync(call) { [weak self] result in
                if case .success(let reply) = result, answer(reply) { self?.dconfWriter = true }
            }
        }
        // An answer of another type is a "no", as no answer is.
        ask("NameHasOwner", Self.dconfName) { (try? $0.readBool()) == true }
        ask("ListActivatableNames", nil) { reply in
            guard case .array(_, let names)? = try? reply.readValue() else { return false }
            return names.contains { $0.string == Self.dconfName }
        }
    }
}
