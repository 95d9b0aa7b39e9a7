import Glibc

/// Someone else who may make a thread of this process real-time when the
/// process may not itself: on desktops rtkit (org.freedesktop.RealtimeKit1,
/// `RealtimeKit`, beside it in RealtimeKit/). The engine is handed one by
/// whoever composes it, so that it never calls the bus itself.
package protocol RealtimeBroker: Sendable {
    /// Names the broker in the log ("rtkit").
    var name: String { get }
    /// The broker's rules, asked before each request: the highest priority
    /// it grants, and the RLIMIT_RTTIME (µs) the process must have set at
    /// or below, or it refuses.
    func limits() throws(RealtimeRefusal) -> RealtimeBrokerLimits
    /// Makes thread `tid` of this process real-time at `priority`.
    func makeRealtime(thread tid: pid_t, priority: Int32) throws(RealtimeRefusal)
}

package struct RealtimeBrokerLimits: Sendable, Equatable {
    package var maxPriority: Int32
    package var maxRealtimeMicroseconds: UInt64
    package init(maxPriority: Int32, maxRealtimeMicroseconds: UInt64) {
        self.maxPriority = maxPriority
        self.maxRealtimeMicroseconds = maxRealtimeMicroseconds
    }
}

/// Why a thread was not made real-time, in words for the log
/// ("sched_setscheduler: Operation not permitted").
package struct RealtimeRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }

    /// A failed system call with its errno's text.
    package init(call: String, errno code: Int32) {
        description = "\(call): \(String(cString: strerror(code)))"
    }
}
