import Foundation
import SysoundAudio
import SysoundConfig
import SysoundCore
import SysoundHaptics
import SysoundLeds

/// What a D-Bus event did through the feedbackd theme.
public struct EventResult: Sendable, Equatable {
    /// The level the event was decided at (the user's, the app's and the hints' together).
    public var level: FeedbackProfile
    /// Whether anything of the event could be carried out at this level
    /// (feedbackd's "found"): false ends the event with reason not-found.
    public var found = false
    /// The voice of its sound, if one plays.
    public var voice: VoiceID?
    /// The sound's length in seconds, if one plays.
    public var duration: Double?
    /// The vibration started, if any.
    public var vibration: HapticPattern?
    /// The theme's `Led` shown while the event runs (`endEventLed` ends it).
    public var led: LedShowID?
    /// Whether the flash for alerts flashed for it.
    public var flashed = false

    public var hapticMs: Int { vibration?.durationMs ?? 0 }
}

extension FeedbackManager {
    /// An event's vibration outranks a `Vibrate` pattern (priority 1) and
    /// every sound's paired haptic: it ends the one and is never cut by the others.
    public static let eventHapticPriority = 3
    /// The priority of the D-Bus face's `Vibrate` patterns.
    public static let patternHapticPriority = 1

    /// The feedbackd theme in use, once the D-Bus face loaded it.
    public var feedbackdTheme: FeedbackdTheme? { feedbackd.withLock { $0 } }

    /// Loads the feedbackd theme the configuration names (or `FEEDBACK_THEME`)
    /// and uses it from now on; its problems are logged, the rest is used.
    /// Called by the D-Bus face at start and by `reload` (SIGHUP) after that.
    @discardableResult
    public func loadFeedbackdTheme(environment: [String: String] = ProcessInfo.processInfo.environment) -> [Diagnostic] {
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
    public func setFeedbackdThemeName(_ name: String?) {
        feedbackdThemeName.withLock { $0 = name }
        if feedbackdTheme != nil { loadFeedbackdTheme() }
    }

    /// Whether the theme gives `event` nothing but LEDs, in any section.
    static func isLedOnly(_ event: String, _ theme: FeedbackdTheme) -> Bool {
        let all = theme.feedbacks(for: event, level: .full) ?? []
        return !all.isEmpty && all.allSatisfy { if case .led = $0.feedback { true } else { false } }
    }

    /// The feedbackd level a request is decided at: the user's profile (the
    /// control files), lowered by the app's level and the request's hint; an
    /// allowed `important` request replaces only the user's.
    public func level(for request: PlayRequest) -> FeedbackProfile {
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

    /// Carries out a D-Bus event as the feedbackd theme says at the request's
    /// level: its sound (by sysound's names, under the same policy as any
    /// play, without the sound's own paired haptic), its first vibration
    /// and its first `Led` (the most feedback's section; the screen lock does
    /// not hold an LED back). Nil when the theme does not
    /// know the event: then sysound's own name of it is played instead.
    public func triggerEvent(_ event: String, _ request: PlayRequest) -> EventResult? {
        guard let theme = feedbackdTheme else { return nil }
        let desktop = desktop
        let (limited, _, pierces) = configuration.policy.limits(for: request, state: state, desktop: desktop)
        let level = FeedbackProfile(state: limited)
        // Do not disturb holds the theme's vibrations as it holds an alert's
        // (no buzzing either), but not the silent section's keyboard taps.
        let quietHours = desktop.doNotDisturb && !pierces
        guard let feedbacks = theme.feedbacks(for: event, level: level) else { return nil }
        var result = EventResult(level: level)
        // `play` counts the app for `status` when a sound is asked for; otherwise it is counted here.
        var counted = false
        defer { if !counted { seen(app: request.app) } }
        for (section, feedback) in feedbacks {
            switch feedback {
            case .led(let led):
                // Found only where a light shows it, as feedbackd without an LED.
                guard result.led == nil, let shown = showEventLed(led, event: event) else { continue }
                result.found = true
                result.led = shown
            case .dummy:
                result.found = true
            case .sound(let sound):
                result.found = true
                guard result.voice == nil else { continue }
                var play = request
                play.source = .name(sound.effect)
                play.haptic = false
                play.role = sound.mediaRole
                counted = true
                do throws(FeedbackError) {
                    let played = try self.play(play)
                    result.flashed = played.flashed
                    result.voice = played.voice
                    result.duration = played.voice == nil ? nil : played.duration
                } catch {
                    logger.warning("event \(event) (\(section) section of \(theme.name)): sound \"\(sound.effect)\": \(error.message)")
                }
            case .rumble, .periodic, .pattern:
                guard let pattern = feedback.hapticPattern, let haptics, !haptics.devices.isEmpty else { continue }
                result.found = true
                // The haptics switch holds, except for the silent section,
                // which feedbackd plays in every profile (the keyboard's
                // key-pressed): the silent profile itself is haptics off here.
                guard result.vibration == nil, !limited.interrupted, limited.haptics || section == .silent,
                    !quietHours || section == .silent
                else { continue }
                do throws(HapticsError) {
                    try haptics.vibrate(pattern: pattern, priority: Self.eventHapticPriority)
                    result.vibration = pattern
                } catch {
                    logger.debug("event \(event): vibration \(pattern) not started: \(error)")
                }
            }
        }
        // An event of LEDs alone (feedbackd's `*-missed-*`) where no light
        // shows it: sysound's own name of it answers, as before LEDs
        // (docs/dbus.md, "Deliberate differences").
        if result.led == nil, Self.isLedOnly(event, theme) { return nil }
        // No sound at this level (silent mode): the flash for alerts still
        // follows the category of the event's sound.
        if result.voice == nil, !result.flashed, let category = category(ofEvent: event, in: theme) {
            result.flashed = flashForAlert(category, request)
            result.found = result.found || result.flashed
        }
        return result
    }
}
