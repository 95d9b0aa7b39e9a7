import SysoundConfig
import SysoundLeds

/// A theme's `Led` entry (feedbackd's FbdFeedbackLed): shown on the
/// notification LED from its run until its event ends; it never ends by
/// itself. Which light, and what shows when several events hold one, the
/// LED engine's arbiter decides (highest priority).
final class LedFeedback: EventFeedback {
    let led: FeedbackdLed
    let event: String
    let manager: FeedbackManager
    private var shown: LedShowID?

    init(led: FeedbackdLed, event: String, manager: FeedbackManager) {
        self.led = led
        self.event = event
        self.manager = manager
    }

    var kind: String { "led" }
    var summary: String { String(FeedbackdFeedback.led(led).summary.dropFirst("led ".count)) }

    func run(repeating: Bool, ended: @escaping () -> Void) -> FeedbackRun {
        // A repeating event runs it once: it lasts until the event ends.
        if shown != nil { return .untilEnded }
        guard let id = manager.showEventLed(led, event: event) else { return .failed("no light shows it") }
        shown = id
        return .untilEnded
    }

    func end() {
        guard let shown else { return }
        manager.endEventLed(shown)
        self.shown = nil
    }
}

/// The flash for alerts of an event whose sound does not play at its level
/// (silent mode): one bounded burst, decided when it runs, never repeated.
final class FlashFeedback: EventFeedback {
    let category: SysoundCore.SoundCategory
    let request: PlayRequest
    let manager: FeedbackManager

    init(category: SysoundCore.SoundCategory, request: PlayRequest, manager: FeedbackManager) {
        self.category = category
        self.request = request
        self.manager = manager
    }

    var kind: String { "flash" }
    var summary: String { "flash for alerts" }

    func run(repeating: Bool, ended: @escaping () -> Void) -> FeedbackRun {
        // The kernel ends the burst; the event need not wait for it.
        manager.flashForAlert(category, request) ? .done(nil) : .done("the flash for alerts is \(manager.state.flash.rawValue)")
    }

    func end() {}
}

import SysoundCore
