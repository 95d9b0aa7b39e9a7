/// One feedback of a running event (feedbackd's FbdFeedbackBase): it runs,
/// tells when a run ended by itself, and can be ended early. The event
/// (`FeedbackEvent`) decides whether it runs again; the feedback only
/// executes. Used on the event loop's thread only.
///
/// A sound, a vibration and a dummy are the kinds sysound has; a feedback
/// that lasts until it is ended (an LED) returns `.untilEnded` from `run`
/// and is ended with its event.
package protocol EventFeedback: AnyObject {
    /// What it is, for people: `sound`, `vibration`, `dummy`, `led`.
    var kind: String { get }
    /// What it plays, for people: `bell`, `1:40`, `10000 ms`.
    var summary: String { get }

    /// Starts one run. `repeating`: the event wants it to run again when it
    /// ends; a feedback that can repeat by itself (a looping voice) does so,
    /// and says `.repeating`. `ended` is called on the loop when the run
    /// ends by itself (never after `end`, never from within `run`).
    func run(repeating: Bool, ended: @escaping () -> Void) -> FeedbackRun

    /// Lets the run in progress play to its end without repeating (a
    /// looping voice stops looping); `ended` follows. Others need nothing.
    func finishRun()

    /// Ends the run in progress now; `ended` is not called.
    func end()
}

extension EventFeedback {
    package func finishRun() {}
}

/// What became of a feedback's run.
package enum FeedbackRun: Sendable, Equatable {
    /// It runs a length of its own, then calls `ended`.
    case running
    /// It repeats by itself until `finishRun` or `end`.
    case repeating
    /// It runs until it is ended (an LED); it never ends by itself.
    case untilEnded
    /// Nothing to wait for: the user's settings held it (why, for people)
    /// or it was over at once (a dummy without a duration, nil). It is not
    /// run again.
    case done(String?)
    /// It could not be carried out (an unknown sound, an unreadable file):
    /// why, for people. An event all of whose feedbacks fail is not found.
    case failed(String)

    /// Whether something is now running.
    package var isRunning: Bool {
        switch self {
        case .running, .repeating, .untilEnded: true
        case .done, .failed: false
        }
    }
}
