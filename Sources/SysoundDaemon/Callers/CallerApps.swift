import Glibc
import Logging
import SysoundCore
import SysoundFeedback
import SysoundPlatform

/// Which app id decides for a caller, on every face: a sandboxed caller's
/// proved id replaces the one it claims (for the `important` allow-lists,
/// `[apps]` levels, feedbackd's per-app settings and the status counters);
/// a host caller keeps its claim, as feedbackd does — on the host nothing
/// proves an app's id (any process of the user can claim any id, and could
/// as well write the control files), so the id there names a wish, not a
/// permission. A sandboxed caller whose sandbox cannot be read decides as
/// no app at all: no app level, never `important`.
///
/// Also the record `sysound status` shows: the sandboxed apps seen, by
/// verified id. Shared by the socket and the D-Bus face.
package final class CallerApps: @unchecked Sendable {
    /// Where the list of sandboxed apps seen goes (`status`'s `sandboxed` field).
    let report: @Sendable (String) -> Void
    let logger: Logger
    /// The daemon's `$XDG_RUNTIME_DIR`: Flatpak's instance directories are there.
    let runtimeDirectory: String?
    private struct State {
        /// Callers (a bus name, a socket connection) whose claim was already logged as replaced.
        var warned: Set<String> = []
        /// `kind:id` → requests, for status.
        var seen = AppsSeenByKind()
    }
    private let state = Locked(State())

    package convenience init(manager: FeedbackManager, logger: Logger, runtimeDirectory: String? = CallerApps.environmentRuntimeDirectory()) {
        self.init(logger: logger, runtimeDirectory: runtimeDirectory) { [weak manager] in manager?.setStatus("sandboxed", $0) }
    }

    package init(logger: Logger, runtimeDirectory: String?, report: @escaping @Sendable (String) -> Void) {
        self.report = report
        self.logger = logger
        self.runtimeDirectory = runtimeDirectory
    }

    package static func environmentRuntimeDirectory() -> String? {
        guard let value = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), value.hasPrefix("/") else { return nil }
        return value
    }

    /// The id that decides for `caller` (a bus name, `socket N`), which
    /// claims `claimed` and whose sandbox is `identity`.
    package func app(claimed: String?, identity: SandboxIdentity, caller: String) -> String? {
        guard identity.isSandboxed else { return claimed }
        let verified = identity.verifiedApp
        let (firstMismatch, summary) = state.withLock { state -> (Bool, String) in
            state.seen.saw(verified ?? "?", kind: identity.kind)
            let mismatch = claimed != nil && claimed != verified && !state.warned.contains(caller)
            if mismatch {
                // Bounded: a caller is warned about once, and the set forgets all past a few thousand.
                if state.warned.count >= 4096 { state.warned = [] }
                state.warned.insert(caller)
            }
            return (mismatch, state.seen.summary)
        }
        report(summary)
        if firstMismatch {
            logger.warning(
                "\(caller) claims app id \"\(claimed ?? "")\" but its sandbox proves \(identity); \(verified.map { "\"\($0)\"" } ?? "no app id") decides")
        }
        return verified
    }

    /// Forgets that `caller` was warned (it left: a new one may take its name).
    func forget(_ caller: String) {
        _ = state.withLock { $0.warned.remove(caller) }
    }
}

/// The sandboxed apps seen, by kind and verified id (`unknown` for a
/// sandbox that could not be read), for `sysound status`. Bounded as `AppsSeen`.
struct AppsSeenByKind {
    static let capacity = 64
    private(set) var requests: [String: Int] = [:]
    private var order: [String] = []

    mutating func saw(_ app: String, kind: String) {
        let key = kind == "unknown" ? "unknown" : "\(app)(\(kind))"
        if requests[key] != nil {
            order.removeAll { $0 == key }
        } else if order.count == Self.capacity {
            requests[order.removeFirst()] = nil
        }
        order.append(key)
        requests[key, default: 0] += 1
    }

    /// `id(kind):requests` pairs, most requests first.
    var summary: String {
        requests.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
    }
}
