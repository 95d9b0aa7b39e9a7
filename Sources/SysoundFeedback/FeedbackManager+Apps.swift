import FoundationEssentials
import Glibc
import SysoundCore

/// The apps that asked for feedback (socket `app=`, D-Bus `app_id`), for
/// `sysound status`: an integrator sees which ids to give a level in
/// `[apps."id"]`. Bounded: past `capacity` ids the least recently seen goes.
struct AppsSeen: Sendable {
    static let capacity = 64
    private(set) var requests: [String: Int] = [:]
    private var order: [String] = []  // least recently seen first

    /// Returns whether `app` is new (never seen, or forgotten since).
    @discardableResult
    mutating func saw(_ app: String) -> Bool {
        let new = requests[app] == nil
        defer { requests[app, default: 0] += 1 }
        if !new {
            order.removeAll { $0 == app }
        } else if order.count == Self.capacity {
            requests[order.removeFirst()] = nil
        }
        order.append(app)
        return new
    }

    /// `id:requests` pairs, most requests first.
    var summary: String {
        requests.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key):\($0.value)" }.joined(separator: ",")
    }
}

extension FeedbackManager {
    func seen(app: String?) {
        guard let app else { return }
        if appsSeen.withLock({ $0.saw(app) }), let handler = newAppHandler.withLock({ $0 }) { handler(app) }
    }

    /// Facts another face of the daemon reports in `status` (e.g. the D-Bus
    /// name's state): set once when they change, read with every status.
    package func setStatus(_ key: String, _ value: String?) {
        faceStatus.withLock { $0[key] = value }
    }
}

extension FeedbackManager {
    /// Why the daemon does not run the configuration file as written (it
    /// serves the defaults, or kept the previous file at a reload), for
    /// `status`; nil once a file loaded cleanly.
    package var configurationProblem: String? {
        get { faceStatus.withLock { $0[Self.configurationProblemKey] } }
        // One line: a status field is one line on the wire and on screen.
        set {
            let line = newValue?.split(separator: "\n").map { $0.trimmingWhitespace() }.joined(separator: " ")
            setStatus(Self.configurationProblemKey, line)
        }
    }

    static let configurationProblemKey = "config-error"
}
