/// Why an event ended, as libfeedback documents `LfbEventEndReason` and
/// `FeedbackEnded` carries it (as a `u`: not-found is -1's bit pattern).
package enum EventEndReason: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// The theme has nothing for the event at the request's level.
    case notFound = -1
    /// Every feedback ran its natural length.
    case natural = 0
    /// The timeout ran out (feedbackd 0.8.3 says `natural` here; sysound
    /// sends the reason libfeedback documents, see docs/dbus.md).
    case expired = 1
    /// `EndFeedback`, the caller left the bus, or the daemon stopped.
    case explicit = 2

    /// The value of FeedbackEnded's `reason`.
    package var wireValue: UInt32 { UInt32(bitPattern: rawValue) }

    /// The name people and the socket see: `natural`, `expired`, `explicit`, `not-found`.
    package var description: String {
        switch self {
        case .notFound: "not-found"
        case .natural: "natural"
        case .expired: "expired"
        case .explicit: "explicit"
        }
    }
}

/// How long an event runs: TriggerFeedback's `timeout` as feedbackd reads it.
package enum EventTimeout: Sendable, Equatable, CustomStringConvertible {
    /// -1: every feedback runs once.
    case once
    /// 0: the feedbacks repeat until the event is ended.
    case untilEnded
    /// N > 0: the feedbacks repeat until N seconds have passed; the event
    /// ends when the runs then in progress end (feedbackd does not cut them).
    case seconds(Int)

    /// From TriggerFeedback's `timeout`: below -1 is -1, as feedbackd takes it.
    package init(_ timeout: Int32) {
        switch timeout {
        case ..<0: self = .once
        case 0: self = .untilEnded
        default: self = .seconds(Int(timeout))
        }
    }

    /// The value TriggerFeedback would carry.
    package var seconds: Int32 {
        switch self {
        case .once: -1
        case .untilEnded: 0
        case .seconds(let n): Int32(clamping: n)
        }
    }

    /// Whether the feedbacks repeat.
    package var repeats: Bool { self != .once }

    package var description: String {
        switch self {
        case .once: "once"
        case .untilEnded: "until ended"
        case .seconds(let n): "\(n) s"
        }
    }
}
