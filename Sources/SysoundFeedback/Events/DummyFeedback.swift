import SysoundPlatform

/// A theme's `Dummy` entry (feedbackd's FbdFeedbackDummy): it plays
/// nothing and lasts `duration` ms (none: it is over at once), which keeps
/// its event running that long.
final class DummyFeedback: EventFeedback {
    let durationMs: Int
    let loop: EventLoop
    private var timer: EventSource?

    init(durationMs: Int, loop: EventLoop) {
        self.durationMs = durationMs
        self.loop = loop
    }

    var kind: String { "dummy" }
    var summary: String { "\(durationMs) ms" }

    func run(repeating: Bool, ended: @escaping () -> Void) -> FeedbackRun {
        guard durationMs > 0 else { return .done(nil) }
        do {
            timer = try loop.addTimer(after: UInt64(durationMs) * 1000, accuracy: .millisecond) { [weak self] _ in
                self?.timer = nil
                ended()
            }
        } catch {
            return .done("its timer cannot be armed: \(error)")
        }
        return .running
    }

    func end() {
        timer?.cancel()
        timer = nil
    }
}
