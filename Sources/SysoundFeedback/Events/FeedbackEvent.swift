import SysoundCore
import SysoundPlatform

/// One triggered event (feedbackd's FbdEvent): the set of feedbacks its
/// theme entry gave it, run together, each repeated as the timeout says,
/// and its end with the reason. It owns its feedbacks and its timeout's
/// timer; everything runs on the loop's thread.
///
/// - timeout `.once`: each feedback runs once; the event ends when all have ended.
/// - `.untilEnded`: each feedback runs again whenever it ends, until `end`.
/// - `.seconds(N)`: as `.untilEnded` until N s have passed; then each feedback
///   finishes the run in progress (a feedback that runs until ended, an LED,
///   ends), and the event ends, `expired`, with the last of them.
/// - `end`: every feedback ends now; the event ends `explicit`.
///
/// A feedback whose run does nothing (the policy held it, no device, a
/// dummy without duration) is not run again: a loop never spins.
package final class FeedbackEvent: @unchecked Sendable {
    // @unchecked: used on the loop's thread only (its closures come back there).
    package let id: UInt32
    package let name: String
    package let timeout: EventTimeout
    /// The level the feedbackd theme's entry was taken at; nil when the
    /// theme does not know the event (sysound's own sound of it plays).
    package let level: FeedbackProfile?
    /// Who triggered it (a D-Bus unique name), so that its leaving ends it.
    package let owner: String?
    /// Its feedbacks, in the theme's order (the most feedback's section first).
    package let feedbacks: [any EventFeedback]
    /// What the first run of each feedback did, for the caller: nil for one
    /// that runs, else why it did nothing.
    package private(set) var firstRuns: [FeedbackRun] = []

    private var running: [Bool]
    private var expiry: EventSource?
    private var expired = false
    private var endedExplicitly = false
    private var finished = false
    private let loop: EventLoop
    private let onEnd: (FeedbackEvent, EventEndReason) -> Void

    init(
        id: UInt32, name: String, timeout: EventTimeout, level: FeedbackProfile?, owner: String?, feedbacks: [any EventFeedback],
        loop: EventLoop,
        onEnd: @escaping (FeedbackEvent, EventEndReason) -> Void
    ) {
        self.id = id
        self.name = name
        self.timeout = timeout
        self.level = level
        self.owner = owner
        self.feedbacks = feedbacks
        self.loop = loop
        self.onEnd = onEnd
        running = Array(repeating: false, count: feedbacks.count)
    }

    /// Whether it has ended (its end was told).
    package var hasEnded: Bool { finished }

    /// Runs every feedback and arms the timeout. An event with nothing
    /// running after that ends on the loop's next turn, after the caller
    /// has answered with its id: `natural`, or `not-found` when it has no
    /// feedback or every one failed.
    func start() throws(EventLoopError) {
        for (i, feedback) in feedbacks.enumerated() {
            let run = feedback.run(repeating: timeout.repeats) { [weak self] in self?.feedbackEnded(i) }
            firstRuns.append(run)
            running[i] = run.isRunning
        }
        if !running.contains(true) {
            let found = firstRuns.contains { if case .failed = $0 { false } else { true } }
            loop.post { [self] in finish(found ? nil : .notFound) }
            return
        }
        if case .seconds(let n) = timeout {
            expiry = try loop.addTimer(after: UInt64(n) * 1_000_000, accuracy: .millisecond) { [weak self] _ in self?.expire() }
        }
    }

    /// Ends every feedback now: `EndFeedback`, the caller left, the daemon stops.
    func end() {
        guard !finished else { return }
        endedExplicitly = true
        for (i, feedback) in feedbacks.enumerated() where running[i] {
            running[i] = false
            feedback.end()
        }
        finish()
    }

    private func feedbackEnded(_ i: Int) {
        guard !finished, running[i] else { return }
        if timeout.repeats && !expired {
            let again = feedbacks[i].run(repeating: true) { [weak self] in self?.feedbackEnded(i) }
            running[i] = again.isRunning
        } else {
            running[i] = false
        }
        if !running.contains(true) { finish() }
    }

    /// The timeout ran out: no feedback starts again; each finishes its run.
    private func expire() {
        expiry = nil
        guard !finished else { return }
        expired = true
        for (i, feedback) in feedbacks.enumerated() where running[i] {
            if case .untilEnded = firstRuns[i] {
                // Nothing of its own to finish: it would never end.
                running[i] = false
                feedback.end()
            } else {
                feedback.finishRun()
            }
        }
        if !running.contains(true) { finish() }
    }

    private func finish(_ given: EventEndReason? = nil) {
        guard !finished else { return }
        finished = true
        expiry?.cancel()
        expiry = nil
        let reason = given ?? (endedExplicitly ? .explicit : expired ? .expired : .natural)
        onEnd(self, reason)
    }
}
