import Glibc
import Logging
import SysoundCore

/// The capability "make this thread real-time", which whoever composes the
/// audio engine hands it (the daemon, with rtkit as its broker). A sound's
/// refill is a round trip through the sound server and the client's audio
/// threads that must finish within one period; on a busy machine a
/// normal-priority thread waits for other tasks' time slices and the sink
/// runs dry (docs/latency.md, "Real-time audio threads").
///
/// Two ways, in this order: `sched_setscheduler(tid, SCHED_FIFO |
/// SCHED_RESET_ON_FORK)` directly (root, CAP_SYS_NICE or an RLIMIT_RTPRIO
/// that allows the priority), else the broker (rtkit), which grants SCHED_RR
/// up to its own maximum once the process has set RLIMIT_RTTIME at or below
/// its limit. Neither is an error: the thread then runs at normal priority.
/// Either way RLIMIT_RTTIME is set first (to the broker's limit, else 200 ms,
/// rtkit's default and PulseAudio's) where it was unlimited, so that a
/// real-time thread that never blocks gets the process killed instead of
/// holding a core forever.
///
/// The log says which way worked, or why neither did, once, and again only
/// when that changes (the engine asks again at every device resume).
package final class RealtimeThreads: Sendable {
    /// The configured priority (`[audio] realtime_priority`); 0 is off.
    package let priority: Int32
    let calls: SchedulerCalls
    let broker: (any RealtimeBroker)?
    let logger: Logger
    private let lastReport = Locked<String?>(nil)

    /// The watchdog's limit where there is no broker to say it: rtkit's default.
    package static let defaultRealtimeMicroseconds: UInt64 = 200_000

    package init(priority: Int32, broker: (any RealtimeBroker)?, calls: SchedulerCalls = .system, logger: Logger) {
        self.priority = priority
        self.broker = broker
        self.calls = calls
        self.logger = logger
    }

    /// How a request ended.
    package enum Outcome: Equatable, Sendable {
        /// sched_setscheduler worked: SCHED_FIFO at `priority`.
        case direct(priority: Int32)
        /// The broker (named) made it real-time at `priority`.
        case broker(String, priority: Int32)
        /// Normal priority, with why each way failed.
        case normal(reasons: [String])
        /// `realtime_priority = 0`.
        case off
        /// Nothing to promote.
        case none

        package var isRealtime: Bool {
            switch self {
            case .direct, .broker: true
            default: false
            }
        }
    }

    /// Makes `threads` real-time (all the same way as the first one that
    /// worked), `purpose` naming them for the log ("OpenAL Soft's mixer").
    @discardableResult
    package func promote(_ threads: [pid_t], purpose: String) -> Outcome {
        guard !threads.isEmpty else { return .none }
        var outcome = Outcome.off
        if priority > 0 {
            // rtkit's rules are read once per batch: each call may wait up to its timeout.
            var limits: Result<RealtimeBrokerLimits, RealtimeRefusal>?
            let each = threads.compactMap { promote($0, limits: &limits) }
            guard let first = each.first else { return .none }
            outcome = each.first(where: { !$0.isRealtime }) ?? first
        }
        report(outcome, threads: threads, purpose: purpose)
        return outcome
    }

    /// One thread: directly, else through the broker; nil when it has
    /// ended meanwhile (ESRCH: a library's short-lived thread is no failure).
    private func promote(_ tid: pid_t, limits: inout Result<RealtimeBrokerLimits, RealtimeRefusal>?) -> Outcome? {
        var reasons: [String] = []
        if let refusal = limitRealtime(to: Self.defaultRealtimeMicroseconds) { reasons.append(refusal.description) }
        let e = calls.setFIFO(tid, priority)
        if e == 0 { return .direct(priority: priority) }
        if e == ESRCH { return nil }
        reasons.append(RealtimeRefusal(call: "sched_setscheduler(SCHED_FIFO, \(priority))", errno: e).description
            + (e == EPERM ? noBudget().map { " (\($0))" } ?? "" : ""))
        guard let broker else { return .normal(reasons: reasons + ["no rtkit to ask"]) }
        do throws(RealtimeRefusal) {
            if limits == nil { limits = Result { () throws(RealtimeRefusal) in try broker.limits() } }
            let limits = try limits!.get()
            if let refusal = limitRealtime(to: limits.maxRealtimeMicroseconds) { throw refusal }
            let granted = min(priority, limits.maxPriority)
            guard granted >= 1 else { throw RealtimeRefusal("it grants no priority (MaxRealtimePriority \(limits.maxPriority))") }
            try broker.makeRealtime(thread: tid, priority: granted)
            return .broker(broker.name, priority: granted)
        } catch {
            return .normal(reasons: reasons + ["\(broker.name): \(error)"])
        }
    }

    /// Why even a privileged process is refused, when that is why: its cpu
    /// cgroup gives real-time tasks no time.
    private func noBudget() -> String? {
        guard let budget = calls.realtimeBudget(), budget.microseconds == 0 else { return nil }
        return "cpu cgroup \(budget.cgroup) gives real-time no time: \(budget.file) is 0"
    }

    /// Lowers RLIMIT_RTTIME to `microseconds` unless it is already at or
    /// below it; a failure is a reason for the log, not a stop.
    private func limitRealtime(to microseconds: UInt64) -> RealtimeRefusal? {
        let current = calls.realtimeLimit()
        guard current.hard > microseconds || current.soft > microseconds else { return nil }
        let e = calls.setRealtimeLimit(min(microseconds, current.hard))
        return e == 0 ? nil : RealtimeRefusal(call: "setrlimit(RLIMIT_RTTIME, \(microseconds) µs)", errno: e)
    }

    private func report(_ outcome: Outcome, threads: [pid_t], purpose: String) {
        let text: String
        switch outcome {
        case .direct(let p): text = "real-time: SCHED_FIFO \(p), set directly (sched_setscheduler)"
        case .broker(let name, let p):
            let limit = calls.realtimeLimit().hard
            text = "real-time: SCHED_RR \(p) through \(name) (RLIMIT_RTTIME \(limit) µs, as \(name) requires)"
        case .normal(let reasons):
            text = "at normal priority, neither way to real-time worked (\(reasons.joined(separator: "; "))); sounds may break up while the CPU is busy"
        case .off: text = "at normal priority: switched off by realtime_priority = 0"
        case .none: return
        }
        let changed = lastReport.withLock { last in
            defer { last = text }
            return last != text
        }
        guard changed else { return }
        let tids = threads.map(String.init).joined(separator: ", ")
        if case .normal = outcome {
            logger.notice("audio threads \(text) [\(purpose): \(tids)]")
        } else {
            logger.info("audio threads \(text) [\(purpose): \(tids)]")
        }
    }
}
