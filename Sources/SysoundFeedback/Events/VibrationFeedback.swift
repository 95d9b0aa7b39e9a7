import SysoundConfig
import SysoundCore
import SysoundPlatform

/// An event's vibration (feedbackd's FbdFeedbackVibra): each run is the
/// pattern, started if the policy allows it now (the manager decides, as
/// for the first run), and lasts the pattern's length.
final class VibrationFeedback: EventFeedback, @unchecked Sendable {
    // @unchecked: used on the loop's thread only.
    let pattern: HapticPattern
    let section: FeedbackProfile
    let request: PlayRequest
    let manager: FeedbackManager
    let loop: EventLoop
    private var timer: EventSource?

    init(pattern: HapticPattern, section: FeedbackProfile, request: PlayRequest, manager: FeedbackManager, loop: EventLoop) {
        self.pattern = pattern
        self.section = section
        self.request = request
        self.manager = manager
        self.loop = loop
    }

    var kind: String { "vibration" }
    var summary: String { pattern.description }

    func run(repeating: Bool, ended: @escaping () -> Void) -> FeedbackRun {
        if let held = manager.startEventVibration(pattern, section: section, request) { return .done(held) }
        do {
            timer = try loop.addTimer(after: UInt64(pattern.durationMs) * 1000, accuracy: .millisecond) { [weak self] _ in
                self?.timer = nil
                ended()
            }
        } catch {
            manager.logger.error("an event's vibration cannot be timed (\(error)); it counts as ended")
            return .done(nil)
        }
        return .running
    }

    func end() {
        guard let timer else { return }
        timer.cancel()
        self.timer = nil
        // The vibration still running is this one's: an event's outranks every other.
        manager.haptics?.stop()
    }
}
