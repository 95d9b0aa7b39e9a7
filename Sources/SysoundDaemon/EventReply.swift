import SysoundCore
import SysoundFeedback

/// An `event` request's reply fields: the wire form of a running event,
/// built in this one place.
enum EventReply {
    /// What an event's first runs did: `id`; `outcome` (`running`, `ended`:
    /// nothing of it runs now, `not-found`); per kind of feedback, what
    /// plays (`sound=bell`, `vibration=1:40`, `dummy=10000%20ms`), or why
    /// not (`sound-skipped=silent`, `sound-failed=…`); `timeout`; `level`,
    /// the level the feedbackd theme's entry was taken at (absent: the
    /// theme does not know the event, and sysound's sound of it played).
    static func fields(of event: FeedbackEvent) -> WireFields {
        var fields: WireFields = ["id": "\(event.id)"]
        var found = false
        var running = false
        for (feedback, run) in zip(event.feedbacks, event.firstRuns) {
            let key: String, value: String
            switch run {
            case .running, .repeating, .untilEnded:
                (key, value) = (feedback.kind, feedback.summary)
                found = true
                running = true
            case .done(let why):
                (key, value) = why.map { (feedback.kind + "-skipped", $0) } ?? (feedback.kind, feedback.summary)
                found = true
            case .failed(let message):
                (key, value) = (feedback.kind + "-failed", message)
            }
            // Two of a kind (two dummies) share one field.
            fields[key] = fields[key].map { $0 + "," + value } ?? value
        }
        fields["outcome"] = running ? "running" : found ? "ended" : "not-found"
        fields["timeout"] = "\(event.timeout.seconds)"
        if let level = event.level { fields["level"] = level.rawValue }
        return fields
    }
}
