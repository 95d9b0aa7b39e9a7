/// Finds the login session whose `LockedHint` the daemon follows, the way a
/// user service must: the daemon usually runs under `systemd --user`, outside
/// any session.
///
/// 1. The session of the daemon's own PID (`GetSessionByPID`), then its `Id`
///    (logind escapes ids in object paths, so the path does not name it).
/// 2. Else the user's display session: `/org/freedesktop/login1/user/self`'s
///    `Display` (so).
/// 3. Else `/org/freedesktop/login1/session/auto`'s `Id`, then `GetSession(Id)`
///    for the real path: logind sends no signals on `self` and `auto`, so
///    only the real path can be followed.
///
/// Pure: it says which call to make next and takes the answer; the logind
/// source makes the calls on the bus. A session found by PID stays for the
/// process's life; a display session is looked up again whenever logind says
/// sessions or the user's display changed, and everything starts over when
/// logind's name returns to the bus.
package struct SessionResolver: Sendable {
    /// One question to logind.
    package enum Query: Equatable, Sendable {
        /// `Manager.GetSessionByPID(pid)` → the session's object path.
        case sessionByPID(UInt32)
        /// `Session.Id` of the object at `path`.
        case sessionID(path: String)
        /// `user/self`'s `Display` property.
        case userDisplay
        /// `session/auto`'s `Id` property.
        case autoSessionID
        /// `Manager.GetSession(id)` → the session's object path.
        case sessionPath(id: String)
    }

    /// What logind answered.
    package enum Answer: Equatable, Sendable {
        case path(String)
        case id(String)
        case display(id: String, path: String)
        /// The call failed; the bus error, for the log (`NoSessionForPID: …`).
        case failed(String)
    }

    /// How the session was found.
    package enum Via: String, Sendable {
        case ownProcess = "the daemon's own session"
        case display = "the user's display session"
    }

    package struct Session: Equatable, Sendable, CustomStringConvertible {
        package var id: String
        package var path: String
        package var via: Via

        package init(id: String, path: String, via: Via) {
            self.id = id
            self.path = path
            self.via = via
        }

        package var description: String { "session \(id) (\(via.rawValue), \(path))" }
    }

    /// One question as asked: `number` tells an answer to it from an answer
    /// to the same question asked earlier, overtaken by a change.
    package struct Request: Equatable, Sendable {
        package var query: Query
        package var number: Int
    }

    /// What the source does next.
    package enum Action: Equatable, Sendable {
        /// Ask logind this, then `receive` the answer with the request.
        case query(Request)
        /// Follow this session (a different one than before): read its
        /// `LockedHint` and subscribe to its `PropertiesChanged`.
        case follow(Session)
        /// The session followed stays the same.
        case keep
        /// There is no session to follow (the reason, for one log line); drop
        /// any subscription and wait for logind to announce a change.
        case none(String)
    }

    package let pid: UInt32
    package private(set) var session: Session?
    /// The question whose answer is expected; an answer to anything else is stale.
    package private(set) var pending: Request?
    private var asked = 0
    private var reasons: [String] = []

    package init(pid: UInt32) {
        self.pid = pid
    }

    /// Starts from the beginning (at start-up and when logind returns).
    package mutating func start() -> Action {
        session = nil
        reasons = []
        return ask(.sessionByPID(pid))
    }

    /// logind left the bus: nothing is followed until it returns (`start()`).
    package mutating func logindVanished() {
        session = nil
        pending = nil
    }

    /// logind announced a change (`SessionNew`, `SessionRemoved` with the id
    /// given, the user's `Display`). A session of the daemon's own process is
    /// kept unless it was removed; a display session is looked up again.
    /// Nil: nothing to do (a lookup is under way, or the own session stays).
    package mutating func sessionsChanged(removed: String? = nil) -> Action? {
        if let session, session.via == .ownProcess, session.id != removed { return nil }
        // A lookup by PID under way goes on to the display session if it fails.
        switch pending?.query {
        case .sessionByPID?, .sessionID?: return nil
        default: break
        }
        reasons = []
        return ask(.userDisplay)
    }

    /// Takes the answer to `request`; nil when that request is no longer
    /// pending (an answer overtaken by a change or a restart).
    package mutating func receive(_ answer: Answer, for request: Request) -> Action? {
        guard request == pending else { return nil }
        pending = nil
        let query = request.query
        switch (query, answer) {
        case (.sessionByPID, .path(let path)):
            return ask(.sessionID(path: path))
        case (.sessionID(let path), .id(let id)) where !id.isEmpty:
            return found(Session(id: id, path: path, via: .ownProcess))
        case (.userDisplay, .display(let id, let path)) where !id.isEmpty && path != "/":
            return found(Session(id: id, path: path, via: .display))
        case (.userDisplay, .display):
            reasons.append("the user has no display session")
            return ask(.autoSessionID)
        case (.autoSessionID, .id(let id)) where !id.isEmpty:
            return ask(.sessionPath(id: id))
        case (.sessionPath(let id), .path(let path)):
            return found(Session(id: id, path: path, via: .display))
        case (_, .failed(let error)):
            reasons.append("\(Self.describe(query)): \(error)")
        default:
            reasons.append("\(Self.describe(query)): unexpected answer \(answer)")
        }
        switch query {
        case .sessionByPID, .sessionID: return ask(.userDisplay)
        case .userDisplay: return ask(.autoSessionID)
        case .autoSessionID, .sessionPath:
            session = nil
            return .none("no login session to follow (" + reasons.joined(separator: "; ") + ")")
        }
    }

    private mutating func ask(_ query: Query) -> Action {
        asked += 1
        let request = Request(query: query, number: asked)
        pending = request
        return .query(request)
    }

    private mutating func found(_ new: Session) -> Action {
        defer { session = new }
        return new == session ? .keep : .follow(new)
    }

    static func describe(_ query: Query) -> String {
        switch query {
        case .sessionByPID(let pid): "GetSessionByPID(\(pid))"
        case .sessionID(let path): "Id of \(path)"
        case .userDisplay: "Display of user/self"
        case .autoSessionID: "Id of session/auto"
        case .sessionPath(let id): "GetSession(\(id))"
        }
    }
}
