import SysoundAudio
import SysoundCore
import SysoundPlatform

/// An event's sound (feedbackd's FbdFeedbackSound): each run is a play
/// under the same policy as any play, so a run the user's settings hold
/// plays nothing. A loopable sound repeats by itself, seamlessly (the
/// voice loops); another is played again when it has been heard to its end.
/// A run ends when its voice has been heard to its end, or, when the
/// policy vibrates instead of sounding (an alert in silent mode), when
/// that vibration's length has passed.
final class SoundFeedback: EventFeedback, @unchecked Sendable {
    // @unchecked: used on the loop's thread only; the engine's end comes back by way of the loop.
    let request: PlayRequest
    let manager: FeedbackManager
    let loop: EventLoop
    private var voice: VoiceID?
    private var hapticTimer: EventSource?
    /// Counts runs, so that the end of an earlier (stopped) run is not taken for this one's.
    private var runs = 0

    init(request: PlayRequest, manager: FeedbackManager, loop: EventLoop) {
        self.request = request
        self.manager = manager
        self.loop = loop
    }

    var kind: String { "sound" }
    var summary: String {
        switch request.source {
        case .name(let name): name
        case .file(let path): path
        }
    }

    func run(repeating: Bool, ended: @escaping () -> Void) -> FeedbackRun {
        runs += 1
        let run = runs
        var play = request
        play.loop = repeating
        let result: PlayResult
        do throws(FeedbackError) {
            result = try manager.play(play)
        } catch {
            // An unknown name is the caller's (not-found tells it); the rest is the system's, and logged.
            if error.code != .unknownSound { manager.logger.warning("an event's sound \(summary) of \(request.app ?? "an unnamed app"): \(error.message)") }
            return .failed(error.message)
        }
        if let voice = result.voice {
            self.voice = voice
            let done = UncheckedCall(ended)
            manager.whenHeard(voice) { [weak self, loop] in
                loop.post { [weak self] in
                    guard let self, self.runs == run, self.voice == voice else { return }
                    self.voice = nil
                    done.call()
                }
            }
            return result.loops ? .repeating : .running
        }
        if case .started(let preset) = result.haptic, let ms = manager.configuration.haptics.presets[preset]?.durationMs, ms > 0 {
            do {
                hapticTimer = try loop.addTimer(after: UInt64(ms) * 1000, accuracy: .millisecond) { [weak self] _ in
                    self?.hapticTimer = nil
                    ended()
                }
                return .running
            } catch {
                manager.logger.error("the vibration instead of \(summary) cannot be timed (\(error)); it counts as ended")
            }
        }
        return .done(result.skipReason)
    }

    func finishRun() {
        if let voice { manager.endLoop(voice) }
    }

    func end() {
        runs += 1
        hapticTimer?.cancel()
        hapticTimer = nil
        if let voice { manager.stop(voice) }
        voice = nil
    }
}

/// A closure carried through a `@Sendable` one and called on the loop it came from.
struct UncheckedCall: @unchecked Sendable {
    let call: () -> Void
    init(_ call: @escaping () -> Void) { self.call = call }
}
