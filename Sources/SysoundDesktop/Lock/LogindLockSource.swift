import Logging
import SysoundPlatform

/// The `LockedHint` of the user's login session, from logind on the system
/// bus (set by GNOME Shell, Phosh, KDE's screen locker, swaylock and others
/// through their logind calls).
///
/// `SessionResolver` decides which session; this type asks logind, follows
/// that session's `PropertiesChanged`, and looks again when logind announces
/// sessions (`SessionNew`, `SessionRemoved`) or a change of the user's
/// `Display`. Missing pieces are one log line each and change nothing else:
/// no system bus (retried), no logind (followed when its name appears), a
/// session without `LockedHint`, the bus or logind restarting (everything is
/// subscribed again).
package final class LogindLockSource {
    static let name = "org.freedesktop.login1"
    static let root = "/org/freedesktop/login1"
    static let manager = "org.freedesktop.login1.Manager"
    static let session = "org.freedesktop.login1.Session"
    static let user = "org.freedesktop.login1.User"

    private var resolver: SessionResolver
    private let uid: UInt32
    private let follower: LockFollower
    private let logger: Logger
    private var bus: BusFollower!
    private var busSlots: [BusSlot] = []
    private var userSlot: BusSlot?
    private var sessionSlot: BusSlot?
    private var logindPresent = true
    private var lastNone: String?

    /// Follows the session of process `pid` (else user `uid`'s display
    /// session) on the bus at `address` (the system bus), dispatched by `loop`.
    package init(
        loop: EventLoop, pid: UInt32, uid: UInt32,
        bus address: Bus.Address = .system,
        follower: LockFollower, logger: Logger
    ) {
        resolver = SessionResolver(pid: pid)
        self.uid = uid
        self.follower = follower
        self.logger = logger
        bus = BusFollower(
            shared: nil, address: address, loop: loop, busName: "system bus",
            wording: .init(
                meanwhile: "the lock stays as it is",
                untilItAppears: "logind's lock is followed once it appears, the locked file works meanwhile",
                again: "looking for the login session again"),
            logger: logger,
            connected: { [unowned self] bus in connected(bus) },
            lost: { [unowned self] in
                dropSubscriptions()
                resolver.logindVanished()
            })
    }

    /// Connects now; call on the loop's thread.
    package func start() { bus.start() }

    package func stop() { bus.stop() }

    private func dropSubscriptions() {
        busSlots = []
        userSlot = nil
        sessionSlot = nil
    }

    private func connected(_ bus: Bus) {
        dropSubscriptions()
        do {
            busSlots.append(try bus.watchNameOwner(Self.name) { [unowned self] _, new in
                if new.isEmpty { logindLeft() } else { logindArrived(on: bus) }
            })
            for member in ["SessionNew", "SessionRemoved"] {
                busSlots.append(try bus.matchSignal(path: Self.root, interface: Self.manager, member: member) { [unowned self] m in
                    // Without the id every session is looked at again: nothing is lost.
                    let id = try? m.readString()
                    sessionsChanged(removed: member == "SessionRemoved" ? id : nil, on: bus)
                })
            }
        } catch {
            logger.error("cannot subscribe to logind's signals: \(error); the lock is not followed")
            return
        }
        logindArrived(on: bus)
    }

    private func logindLeft() {
        guard logindPresent else { return }
        logindPresent = false
        sessionSlot = nil
        userSlot = nil
        resolver.logindVanished()
        logger.warning("logind left the system bus; the lock stays as it is until it returns")
    }

    private func logindArrived(on bus: Bus) {
        if !logindPresent { logger.notice("logind appeared on the system bus; looking for the login session") }
        logindPresent = true
        lastNone = nil
        watchUser(on: bus)
        perform(resolver.start(), on: bus)
    }

    private func sessionsChanged(removed: String?, on bus: Bus) {
        // GetUser fails while the user has no session yet (a lingering user).
        if userSlot == nil { watchUser(on: bus) }
        guard let action = resolver.sessionsChanged(removed: removed) else { return }
        perform(action, on: bus)
    }

    /// The user's `Display` changes are sent on the user's real path
    /// (`GetUser(uid)`), never on `user/self`.
    private func watchUser(on bus: Bus) {
        call(bus, "GetUser", { m throws(BusError) in try m.append(self.uid) }) { [unowned self] result in
            // No user object: the session's own LockedHint still counts; only the Display switch goes unseen.
            guard case .success(let reply) = result, let path = try? reply.readObjectPath() else { return }
            do {
                userSlot = try bus.watchPropertiesChanged(path: path) { [unowned self] interface, changed, invalidated in
                    guard interface == Self.user, changed["Display"] != nil || invalidated.contains("Display") else { return }
                    sessionsChanged(removed: nil, on: bus)
                }
            } catch {
                logger.warning("cannot watch logind's user \(path) (\(error)); a change of the user's display session goes unseen")
            }
        }
    }

    private func perform(_ action: SessionResolver.Action, on bus: Bus) {
        switch action {
        case .query(let request): ask(request, on: bus)
        case .keep: break
        case .follow(let session): follow(session, on: bus)
        case .none(let reason):
            sessionSlot = nil
            // Repeated on every announcement while there is none: say it once.
            if reason != lastNone { logger.notice("\(reason); the locked file alone decides") }
            lastNone = reason
        }
    }

    private func ask(_ request: SessionResolver.Request, on bus: Bus) {
        let answer: (SessionResolver.Answer) -> Void = { [unowned self] answer in
            guard let next = resolver.receive(answer, for: request) else { return }
            perform(next, on: bus)
        }
        let failed: (BusError) -> Void = { [unowned self] error in
            if error.name == BusError.serviceUnknown || error.name == BusError.nameHasNoOwner {
                if logindPresent { logger.notice("no logind on the system bus (\(error.message)); followed when it appears") }
                logindPresent = false
                resolver.logindVanished()
            } else {
                answer(.failed(Self.brief(error)))
            }
        }
        /// GetSessionByPID and GetSession both answer an object path.
        func path(_ member: String, _ build: @escaping (BusMessage) throws(BusError) -> Void) {
            call(bus, member, build) { result in
                switch result {
                // The wrong type is answered as a failure naming the signature.
                case .success(let m): answer((try? m.readObjectPath()).map { .path($0) } ?? .failed("\(member) answered \(m.signature)"))
                case .failure(let e): failed(e)
                }
            }
        }
        func id(of path: String) {
            property(bus, path, Self.session, "Id") { result in
                switch result {
                case .success(.string(let id)): answer(.id(id))
                case .success(let v): answer(.failed("Id is \(v)"))
                case .failure(let e): failed(e)
                }
            }
        }
        switch request.query {
        case .sessionByPID(let pid): path("GetSessionByPID") { m throws(BusError) in try m.append(pid) }
        case .sessionPath(let id): path("GetSession") { m throws(BusError) in try m.append(id) }
        case .sessionID(let path): id(of: path)
        case .autoSessionID: id(of: Self.root + "/session/auto")
        case .userDisplay:
            property(bus, Self.root + "/user/self", Self.user, "Display") { result in
                switch result {
                case .success(let v):
                    if case .structure(let f) = v, f.count == 2, case .string(let id) = f[0], case .objectPath(let path) = f[1] {
                        answer(.display(id: id, path: path))
                    } else {
                        answer(.failed("Display is \(v)"))
                    }
                case .failure(let e): failed(e)
                }
            }
        }
    }

    private func follow(_ session: SessionResolver.Session, on bus: Bus) {
        lastNone = nil
        logger.info("following the lock of login \(session)")
        let origin = "logind session \(session.id)"
        do {
            // Subscribe before reading, so no change falls in between.
            sessionSlot = try bus.watchPropertiesChanged(path: session.path) { [unowned self] interface, changed, invalidated in
                guard interface == Self.session, resolver.session == session else { return }
                if case .bool(let locked)? = changed["LockedHint"] {
                    follower.report(locked, source: "logind", origin: origin)
                } else if invalidated.contains("LockedHint") {
                    readLockedHint(session, origin: origin, on: bus)
                }
            }
        } catch {
            logger.error("cannot subscribe to \(session.path): \(error); the lock is not followed")
            return
        }
        readLockedHint(session, origin: origin, on: bus)
    }

    private func readLockedHint(_ session: SessionResolver.Session, origin: String, on bus: Bus) {
        property(bus, session.path, Self.session, "LockedHint") { [unowned self] result in
            guard resolver.session == session else { return }
            switch result {
            case .success(.bool(let locked)):
                follower.report(locked, source: "logind", origin: origin)
            case .success(let v):
                logger.warning("LockedHint of session \(session.id) is \(v), not a boolean; the locked file alone decides")
            case .failure(let e):
                logger.notice("session \(session.id) has no LockedHint (\(Self.brief(e))): its locker does not tell logind; the locked file (and the screensaver source) decide")
            }
        }
    }

    /// The error's name and the first line of its message: one log line.
    static func brief(_ error: BusError) -> String {
        error.name + ": " + (error.message.split(separator: "\n").first.map(String.init) ?? "")
    }

    // MARK: Calls

    private func call(
        _ bus: Bus, _ member: String, _ build: (BusMessage) throws(BusError) -> Void,
        reply: @escaping (Result<BusMessage, BusError>) -> Void
    ) {
        do {
            let m = try bus.newMethodCall(destination: Self.name, path: Self.root, interface: Self.manager, member: member)
            try build(m)
            try bus.callAsync(m, reply: reply)
        } catch {
            reply(.failure(error))
        }
    }

    private func property(
        _ bus: Bus, _ path: String, _ interface: String, _ name: String,
        reply: @escaping (Result<BusValue, BusError>) -> Void
    ) {
        do {
            try bus.getProperty(destination: Self.name, path: path, interface: interface, name: name, reply: reply)
        } catch {
            reply(.failure(error))
        }
    }
}
