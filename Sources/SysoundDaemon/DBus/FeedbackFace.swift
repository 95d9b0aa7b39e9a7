import Logging
import SysoundPlatform
import SysoundConfig
import SysoundCore
import SysoundFeedback
import SysoundState

/// The D-Bus face: feedbackd's `org.sigxcpu.Feedback` (and `.Haptic`) at
/// /org/sigxcpu/Feedback on the session bus, so feedbackd's clients use
/// sysound unchanged, and beside them `org.sysound.Haptic1`, which names
/// what feedbackd's interfaces cannot (presets, compositions). It decides
/// nothing: every call becomes the request the socket would make of the
/// `FeedbackManager` (play, stop, vibrate, state set), under the same
/// policy. Everything here runs on the loop's thread.
package final class FeedbackFace: @unchecked Sendable {
    static let path = "/org/sigxcpu/Feedback"
    static let interface = "org.sigxcpu.Feedback"
    static let hapticInterface = "org.sigxcpu.Feedback.Haptic"

    let manager: FeedbackManager
    let logger: Logger
    /// Which app id decides for a sender (shared with the socket).
    let callers: CallerApps
    /// Each sender's sandbox, proved once per unique name.
    let senders: BusCallers
    private var connection: BusConnection?
    private var user: Int?
    private var bus: Bus?
    private var name: BusName?
    private var slots: [BusSlot] = []
    private var senderWatches: [String: BusSlot] = [:]
    /// The daemon's running events, shared with the socket's `event`.
    let events: FeedbackEvents
    private var profile: FeedbackProfile
    /// Set while the Profile setter writes its two control files: one PropertiesChanged, not two.
    private var settingProfile = false

    /// - Parameter events: the daemon's running events, on the loop whose thread runs the face.
    init(manager: FeedbackManager, events: FeedbackEvents, logger: Logger, callers: CallerApps) {
        self.manager = manager
        self.events = events
        self.logger = logger
        self.callers = callers
        senders = BusCallers(logger: logger)
        profile = FeedbackProfile(state: manager.state)
        senders.onForget = { [callers] sender in callers.forget(sender) }
    }

    /// Serves on `connection` (the session bus), again after every loss.
    /// The connection may have other users; the face only adds itself.
    func start(on connection: BusConnection) {
        manager.setStatus("dbus", "connecting to the session bus")
        self.connection = connection
        user = connection.addUser(connected: { [unowned self] bus in
            connected(bus)
        }, disconnected: { [unowned self] _ in
            logger.warning("the session bus went away; serving the socket, reconnecting")
            lost()
        })
        connection.start()
        if connection.bus == nil {
            // One line, not an error: a daemon without a session bus still serves its socket.
            logger.info("no session bus (\(connection.lastError.map { "\($0)" } ?? "?")); D-Bus face retries in the background")
            manager.setStatus("dbus", "no session bus yet, retrying")
        }
    }

    /// Leaves the bus: the name and the objects go, the connection stays with its owner.
    func stop() {
        lost()
        if let user { connection?.removeUser(user) }
        user = nil
        connection = nil
    }

    private func connected(_ bus: Bus) {
        self.bus = bus
        do {
            slots.append(try bus.export(feedbackInterface(), at: Self.path))
            slots.append(try bus.export(hapticInterface(), at: Self.path))
            slots.append(try bus.export(sysoundHapticInterface(), at: Self.path))
            // Always queued: with replace, a feedbackd that does not allow
            // replacement still hands the name over when it exits.
            var flags: BusName.Flags = [.allowReplacement, .queue]
            if manager.configuration.dbus.replace { flags.insert(.replaceExisting) }
            name = try BusName(DBusSettings.busName, on: bus, flags: flags) { [unowned self] state in nameChanged(state) }
            logger.info("D-Bus face connected as \(bus.uniqueName ?? "?"), asking for \(DBusSettings.busName)")
        } catch {
            logger.error("D-Bus face not served: \(error)")
            manager.setStatus("dbus", "not served: \(error)")
        }
    }

    private func nameChanged(_ state: BusName.State) {
        let bus = DBusSettings.busName
        let text: String
        switch state {
        case .requesting: text = "asking for \(bus)"
        case .owner: text = "serving \(bus)"
        case .queued: text = "queued for \(bus) behind \(name?.owner ?? "another owner") (feedbackd?); [dbus] replace = true takes it"
        case .taken: text = "\(bus) is taken by \(name?.owner ?? "another owner")"
        case .lost: text = "lost \(bus) to another owner"
        case .failed: text = "the bus refused \(bus)"
        }
        logger.info("D-Bus: \(text)")
        manager.setStatus("dbus", text)
    }

    /// The connection is gone: its registrations with it. Looping feedback
    /// is ended: no client can end it any more.
    private func lost() {
        for sender in senderWatches.keys { events.endAll(of: sender) }
        senderWatches = [:]
        senders.forgetAll()
        slots = []
        name = nil
        bus = nil
        manager.setStatus("dbus", "session bus lost, reconnecting")
    }

    // MARK: - Settings

    /// A control file changed (or this face wrote one): PropertiesChanged when the profile moved.
    func stateChanged() {
        guard !settingProfile else { return }
        let now = FeedbackProfile(state: manager.state)
        guard now != profile else { return }
        profile = now
        do {
            try bus?.emitPropertiesChanged(path: Self.path, interface: Self.interface, names: ["Profile"])
        } catch {
            // Watchers of Profile miss this change (Get still answers it); the face serves on.
            logger.warning("PropertiesChanged for Profile \(now.rawValue) not sent: \(error)")
        }
    }

    func setProfile(_ text: String) throws {
        guard let wanted = FeedbackProfile(rawValue: text) else {
            throw BusError.invalidArgs("\"\(FeedbackHints.show(text))\" is not a profile; expected one of \(FeedbackProfile.names)")
        }
        let (silent, haptics) = wanted.settings
        settingProfile = true
        defer {
            settingProfile = false
            stateChanged()
        }
        for (file, on) in [(ControlFile.silent, silent), (.haptics, haptics)] {
            let change = try StateChange(file, parsing: on ? "1" : "0")
            if case .error(_, let message) = manager.handle(.stateSet(change)) { throw BusError.failed(message) }
        }
    }

    // MARK: - Callers

    /// The sandbox a call's sender proves; a call without a sender (none
    /// comes through the bus so) is of an unknown sandbox, never the host.
    func identity(of message: BusMessage) -> SandboxIdentity {
        guard let sender = message.sender, let bus else { return .unknown(reason: "the call has no sender") }
        return senders.identity(of: sender, on: bus)
    }

    /// The app id that decides for a call claiming `claimed`.
    func decidingApp(claimed: String, identity: SandboxIdentity, message: BusMessage) -> String? {
        callers.app(claimed: claimed, identity: identity, caller: message.sender ?? "a caller without a bus name")
    }

    // MARK: - Events

    /// Sends FeedbackEnded for an event that ended, and lets go of its
    /// caller when that was its last event.
    func ended(_ event: FeedbackEvent, _ reason: EventEndReason) {
        emitEnded(event.id, reason)
        if let sender = event.owner, !events.hasEvents(of: sender) { senderWatches[sender] = nil }
    }

    func emitEnded(_ id: UInt32, _ reason: EventEndReason) {
        do {
            try bus?.emitSignal(path: Self.path, interface: Self.interface, member: "FeedbackEnded") { m in
                try m.append(id)
                try m.append(reason.wireValue)
            }
        } catch {
            logger.warning("cannot send FeedbackEnded(\(id)): \(error)")
        }
    }

    /// Ends the caller's feedback when it leaves the bus (feedbackd does the same).
    func watch(sender: String) {
        guard senderWatches[sender] == nil, let bus else { return }
        do {
            senderWatches[sender] = try bus.watchNameOwner(sender) { [unowned self] _, new in
                if new.isEmpty { senderLeft(sender) }
            }
        } catch {
            logger.warning("cannot follow \(sender) on the bus (\(error)); its looping feedback ends only by EndFeedback or its timeout")
            return
        }
        // The match is installed asynchronously: a caller that left before the
        // bus saw it would never be reported. Asked after the AddMatch, the bus
        // answers in order: either the caller is still there (and the match will
        // report its leaving) or NameHasNoOwner says it is already gone.
        do {
            let ask = try bus.newMethodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetNameOwner")
            try ask.append(sender)
            try bus.callAsync(ask) { [weak self] result in
                if case .failure(let error) = result, error.name == BusError.nameHasNoOwner { self?.senderLeft(sender) }
            }
        } catch {
            logger.warning("cannot ask whether \(sender) is still on the bus: \(error)")
        }
    }

    private func senderLeft(_ sender: String) {
        let count = events.endAll(of: sender)
        if count > 0 { logger.info("\(sender) left the bus; ended its \(count) feedback(s)") }
        senderWatches[sender] = nil
    }
}
