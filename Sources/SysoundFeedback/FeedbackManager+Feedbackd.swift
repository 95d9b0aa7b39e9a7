import FoundationEssentials
import Glibc
import SysoundAudio
import SysoundConfig
import SysoundCore
import SysoundHaptics
import SysoundLeds

/// What an event runs, as the manager decided it from the feedbackd theme
/// at the request's level (feedbackd's lookup and `is_available`).
package struct EventPlan: Sendable, Equatable {
    /// The level the event was decided at (the user's, the app's and the hints' together).
    package var level: FeedbackProfile
    /// Its feedbacks, the most feedback's section first; none: not found.
    package var feedbacks: [PlannedFeedback] = []
}

/// One feedback of an event's plan; `FeedbackEvents` makes the feedback
/// that carries it out. Each run is decided again under the policy of the
/// moment (silent mode switched on mid-loop holds the next run).
package enum PlannedFeedback: Sendable, Equatable {
    /// A play of this request (its paired haptic off for a theme's sound).
    case sound(PlayRequest)
    /// A vibration of the theme's `section`, for `request` (its app and hints).
    case vibration(HapticPattern, section: FeedbackProfile, request: PlayRequest)
    /// Nothing, for `durationMs` (0: over at once).
    case dummy(durationMs: Int)
    /// A theme's `Led` of event `event`, shown until the event ends.
    case led(FeedbackdLed, event: String)
    /// The flash for alerts, once, for an event whose sound does not play at
    /// its level (silent mode) but whose category flashes.
    case flash(SoundCategory, request: PlayRequest)
}

extension FeedbackManager {
    /// Whether the theme gives `event` nothing but LEDs, in any section.
    static func isLedOnly(_ event: String, _ theme: FeedbackdTheme) -> Bool {
        let all = theme.feedbacks(for: event, level: .full) ?? []
        return !all.isEmpty && all.allSatisfy { if case .led = $0.feedback { true } else { false } }
    }

    /// An event's vibration outranks a `Vibrate` pattern (priority 1) and
    /// every sound's paired haptic: it ends the one and is never cut by the others.
    package static let eventHapticPriority = 3
    /// The priority of the D-Bus face's `Vibrate` patterns.
    package static let patternHapticPriority = 1

    /// The feedbackd theme in use, once the D-Bus face loaded it.
    package var feedbackdTheme: FeedbackdTheme? { feedbackd.withLock { $0 } }

    /// Loads the feedbackd theme the configuration names (or `FEEDBACK_THEME`)
    /// and uses it from now on; its problems are logged, the rest is used.
    /// Called by the D-Bus face at start and by `reload` (SIGHUP) after that.
    @discardableResult
    package func loadFeedbackdTheme(environment: [String: String] = ProcessInfo.processInfo.environment) -> [Diagnostic] {
        let name = feedbackdThemeName.withLock { $0 } ?? configuration.dbus.feedbackTheme
        let (theme, problems) = FeedbackdTheme.load(name: name, environment: environment)
        for problem in problems {
            // No feedbackd theme installed is the common desktop case, not a fault.
            if problem.kind == .missingFile && problem.key == nil {
                logger.info("\(problem.message)")
            } else {
                logger.warning("feedbackd theme: \(problem)")
            }
        }
        let files = theme.files.joined(separator: " → ")
        logger.info("feedbackd theme \"\(theme.name)\": \(theme.events.count) events (\(files))")
        setStatus("feedbackd-theme-in-use", "\(theme.name): \(files)")
        feedbackd.withLock { $0 = theme }
        return problems
    }

    /// Names the feedbackd theme instead of `[dbus] feedback_theme` (feedbackd's
    /// own `theme` setting, once the desktop's sources follow it); nil goes
    /// back to the configuration's. Loaded now if the D-Bus face uses one.
    package func setFeedbackdThemeName(_ name: String?) {
        feedbackdThemeName.withLock { $0 = name }
        if feedbackdTheme != nil { loadFeedbackdTheme() }
    }

    /// The feedbackd level a request is decided at: the user's profile (the
    /// control files), lowered by the app's level and the request's hint; an
    /// allowed `important` request replaces only the user's.
    package func level(for request: PlayRequest) -> FeedbackProfile {
        FeedbackProfile(state: configuration.policy.limits(for: request, state: state, desktop: desktop).state)
    }

    /// The media role of the sound the feedbackd theme plays for `event` at
    /// the request's level; nil when it plays none.
    func eventSoundRole(_ event: String, _ request: PlayRequest) -> MediaRole? {
        guard let theme = feedbackdTheme, let feedbacks = theme.feedbacks(for: event, level: level(for: request)) else { return nil }
        for (_, feedback) in feedbacks {
            if case .sound(let sound) = feedback { return sound.mediaRole }
        }
        return nil
    }

    /// What event `event` runs as the feedbackd theme says at the request's
    /// level: its sound (by sysound's names, without the sound's own paired
    /// haptic), its first vibration (the most feedback's section) when a
    /// vibrator is there, its dummies. Nil when the theme does not know the
    /// event: then sysound's own name of it is played instead.
    package func eventPlan(_ event: String, _ request: PlayRequest) -> EventPlan? {
        guard let theme = feedbackdTheme else { return nil }
        let level = level(for: request)
        guard let feedbacks = theme.feedbacks(for: event, level: level) else { return nil }
        var plan = EventPlan(level: level)
        var sounds = false, vibrates = false, lights = false
        for (section, feedback) in feedbacks {
            switch feedback {
            case .led(let led):
                // Planned only where a light shows it, as feedbackd without an LED.
                guard !lights, leds?.hasLight(for: .notification) == true else { continue }
                lights = true
                plan.feedbacks.append(.led(led, event: event))
            case .dummy(let ms):
                plan.feedbacks.append(.dummy(durationMs: ms))
            case .sound(let sound):
                guard !sounds else { continue }
                sounds = true
                var play = request
                play.source = .name(sound.effect)
                play.haptic = false
                play.role = sound.mediaRole
                plan.feedbacks.append(.sound(play))
            case .rumble, .periodic, .pattern:
                guard !vibrates, let pattern = feedback.hapticPattern, let haptics, !haptics.devices.isEmpty else { continue }
                vibrates = true
                plan.feedbacks.append(.vibration(pattern, section: section, request: request))
            }
        }
        // An event of LEDs alone (feedbackd's `*-missed-*`) where no light
        // shows it: sysound's own name of it answers, as before LEDs
        // (docs/dbus.md, "Deliberate differences"); that play counts the app.
        if !lights, Self.isLedOnly(event, theme) { return nil }
        // A sound's play counts the app for `status`; otherwise it is counted here.
        if !sounds { seen(app: request.app) }
        // No sound at this level (silent mode): the flash for alerts still
        // follows the category of the event's sound (a play flashes by
        // itself). Planned only when it would flash: otherwise the event has
        // nothing at this level and is not found, as feedbackd's.
        let state = state
        if !sounds, let category = category(ofEvent: event, in: theme), state.flash.flashes(category, state: state) {
            plan.feedbacks.append(.flash(category, request: request))
        }
        return plan
    }

    /// Starts one run of an event's vibration of the theme's `section`, as
    /// the policy allows it now; nil when it started, else why not. The
    /// haptics switch holds, except for the silent section, which feedbackd
    /// plays in every profile (the keyboard's key-pressed): the silent
    /// profile itself is haptics off here. Do not disturb holds the theme's
    /// vibrations as it holds an alert's, but not the silent section's.
    package func startEventVibration(_ pattern: HapticPattern, section: FeedbackProfile, _ request: PlayRequest) -> String? {
        guard let haptics else { return HapticSkipReason.noDevice.rawValue }
        let (limited, _, pierces) = configuration.policy.limits(for: request, state: state, desktop: desktop)
        if limited.interrupted { return SkipReason.interrupted.rawValue }
        if !limited.haptics && section != .silent { return SkipReason.hapticsOff.rawValue }
        if desktop.doNotDisturb && !pierces && section != .silent { return SkipReason.doNotDisturb.rawValue }
        do throws(HapticsError) {
            try haptics.vibrate(pattern: pattern, priority: Self.eventHapticPriority)
            return nil
        } catch {
            logger.debug("an event's vibration \(pattern) not started: \(error)")
            return "\(error)"
        }
    }
}
