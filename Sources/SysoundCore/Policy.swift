/// Why a sound or a vibration did not happen. The raw values are stable and
/// machine-readable: the CLI prints them with `--verbose`, the wire carries them.
public enum SkipReason: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case silent
    case locked
    case interrupted
    case volumeZero = "volume-zero"
    case hapticsOff = "haptics-off"
    /// The desktop's do not disturb (GNOME, Plasma).
    case doNotDisturb = "do-not-disturb"
    /// GNOME's event sounds are switched off.
    case eventSoundsOff = "event-sounds-off"
    /// GNOME's input feedback sounds are switched off (a sound marked `input`).
    case inputFeedbackOff = "input-feedback-off"

    public var description: String { rawValue }

    /// A sentence for people.
    public var explanation: String {
        switch self {
        case .silent: "silent mode is on"
        case .locked: "the screen is locked"
        case .interrupted: "an interruption is in progress"
        case .volumeZero: "the system volume is 0"
        case .hapticsOff: "haptics are switched off"
        case .doNotDisturb: "do not disturb is on"
        case .eventSoundsOff: "the desktop's event sounds are switched off"
        case .inputFeedbackOff: "the desktop's input feedback sounds are switched off"
        }
    }
}

/// Why a vibration that was due did not start: the policy's reasons and what
/// only the haptics engine knows. Typed inside the process; its `rawValue`
/// is the wire's `haptic-skipped=` (and the vibrate reply's `reason=`).
public enum HapticSkipReason: Sendable, Equatable, Hashable, CustomStringConvertible, RawRepresentable {
    /// The user's settings say no (the haptics switch, an app's setting).
    case policy(SkipReason)
    /// No force-feedback device with rumble is there.
    case noDevice
    /// A vibration of higher priority is running.
    case outranked
    /// Its effects are still on their way to the device (one just appeared,
    /// or its driver answers late): a haptic paired with a sound starts with
    /// the sound or not at all.
    case uploading

    public init?(rawValue: String) {
        switch rawValue {
        case "no-device": self = .noDevice
        case "outranked": self = .outranked
        case "uploading": self = .uploading
        default:
            guard let reason = SkipReason(rawValue: rawValue) else { return nil }
            self = .policy(reason)
        }
    }

    public var rawValue: String {
        switch self {
        case .policy(let reason): reason.rawValue
        case .noDevice: "no-device"
        case .outranked: "outranked"
        case .uploading: "uploading"
        }
    }

    public var description: String { rawValue }

    /// A sentence for people.
    public var explanation: String {
        switch self {
        case .policy(let reason): reason.explanation
        case .noDevice: "no haptic device is available"
        case .outranked: "a more important vibration is running"
        case .uploading: "the device is still receiving its effects"
        }
    }
}

/// What happens to the sound of a request.
public enum SoundOutcome: Sendable, Equatable {
    /// Play now at this final gain (clip × request × category × system volume).
    case play(gain: Double)
    /// Hold until the current interruption ends resumable, then play at this gain.
    case deferred(gain: Double)
    /// Do not play.
    case skip(SkipReason)
}

/// What happens to the vibration of a request.
public enum HapticOutcome: Sendable, Equatable {
    /// Nothing to vibrate: the sound has no haptic and none is due.
    case none
    /// Vibrate with this preset.
    case vibrate(preset: String)
    /// A vibration was due but may not happen.
    case skip(SkipReason)
}

/// The policy's answer for one request: every caller (daemon, embedded engine)
/// acts on this and nothing else.
public struct Decision: Sendable, Equatable {
    public var category: SoundCategory
    public var sound: SoundOutcome
    public var haptic: HapticOutcome

    public init(category: SoundCategory, sound: SoundOutcome, haptic: HapticOutcome) {
        self.category = category
        self.sound = sound
        self.haptic = haptic
    }

    /// The four shapes the behaviour model speaks of (as decided; what was
    /// carried out is a `FeedbackOutcome`).
    public enum Kind: String, Sendable, Equatable {
        case play, skip, vibrateInstead = "vibrate-instead", playAndVibrate = "play-and-vibrate"
    }

    public var kind: Kind {
        let sounds: Bool = switch sound { case .play, .deferred: true; case .skip: false }
        let vibrates: Bool = if case .vibrate = haptic { true } else { false }
        switch (sounds, vibrates) {
        case (true, true): return .playAndVibrate
        case (true, false): return .play
        case (false, true): return .vibrateInstead
        case (false, false): return .skip
        }
    }

    /// The reason the sound was skipped, if it was.
    public var soundSkipReason: SkipReason? {
        if case .skip(let r) = sound { r } else { nil }
    }
}

/// The integrator's knobs that the decision depends on (from `config/`).
public struct PolicySettings: Sendable, Equatable {
    /// Per-category level, 0–1.
    public var categoryGains: [SoundCategory: Double]
    /// The preset an alert vibrates with when its sound has no haptic of its own.
    public var defaultAlertHaptic: String

    /// Per-app levels (`[apps."id"]`), by app id.
    package var apps: [String: AppLevel]
    /// Apps whose `important` requests pierce silent mode (`[dbus] allow_important`).
    public var allowImportant: Set<String>

    package init(
        categoryGains: [SoundCategory: Double] = [:], defaultAlertHaptic: String = BuiltInHaptic.alert.rawValue,
        apps: [String: AppLevel] = [:], allowImportant: Set<String> = []
    ) {
        self.categoryGains = categoryGains
        self.defaultAlertHaptic = defaultAlertHaptic
        self.apps = apps
        self.allowImportant = allowImportant
    }

    /// The settings a request is decided under: its app's level and its own
    /// profile hint can only lower them. An `important` request of an allowed
    /// app replaces only the user's level (as feedbackd 0.8.5): silent mode,
    /// and the silent profile's haptics off, are lifted; the app's level and
    /// the hint still hold it. With the desktop's settings: feedbackd's
    /// per-app profile is a second level (the lower of it and `[apps]`
    /// holds), its `allow-important` a second allow-list. `pierces`: the
    /// request is an allowed `important` one, which do not disturb lets
    /// through too.
    package func limits(
        for request: PlayRequest, state: SystemState, desktop: DesktopState
    ) -> (state: SystemState, gain: Double, pierces: Bool) {
        let app = request.app.flatMap { apps[$0] }
        let gain = min(max(app?.gain ?? 1, 0), 1)
        // The app's level: the lower of `[apps]` and feedbackd's per-app profile.
        let appLevel = min(app?.profile ?? .full, request.app.flatMap { desktop.appProfiles[$0] } ?? .full)
        if request.important, let id = request.app, allowImportant.contains(id) || desktop.allowImportant.contains(id) {
            var pierced = state
            if FeedbackProfile(state: state) == .silent { pierced.haptics = true }
            pierced.silent = false
            return (min(appLevel, request.profile ?? .full).limiting(pierced), gain, true)
        }
        return (min(appLevel, request.profile ?? .full).limiting(state), gain, false)
    }

    public static let defaults = PolicySettings()

    public func gain(for category: SoundCategory) -> Double {
        min(max(categoryGains[category] ?? 1, 0), 1)
    }
}

/// The behaviour model (docs/architecture.md, "The behaviour model") as one pure function.
package enum Policy {
    /// Decides what a play request does, given the sound's theme entry, the
    /// user's settings (control files) and the desktop's switches.
    ///
    /// Order of reasons, most fundamental first: do not disturb (alerts only,
    /// not for an allowed `important` request), silent mode, screen lock,
    /// event sounds off (everything but playback), input feedback off (sounds
    /// marked `input`, unless played as playback), interruption, volume.
    /// A silenced alert vibrates instead; with vibrate-on-alert it sounds and
    /// vibrates. A sound's paired haptic follows the sound, except that silent
    /// mode, the desktop's sound switches and volume 0 silence only the sound:
    /// haptics obey their own switch. Lock, interruption and do not disturb
    /// stop both (do not disturb means no buzzing either).
    public static func decide(
        _ request: PlayRequest, entry: SoundEntry, state: SystemState,
        settings: PolicySettings = .defaults, desktop: DesktopState = .defaults
    ) -> Decision {
        let (state, appGain, pierces) = settings.limits(for: request, state: state, desktop: desktop)
        let category = request.category ?? entry.category
        let gain = clamp(entry.gain) * clamp(request.gain) * appGain * settings.gain(for: category) * clamp(state.volume)

        let sound: SoundOutcome
        if desktop.doNotDisturb && category.silencedByDoNotDisturb && !pierces {
            sound = .skip(.doNotDisturb)
        } else if state.silent && category.silencedBySilentMode {
            sound = .skip(.silent)
        } else if state.locked && category.silencedByLock {
            sound = .skip(.locked)
        } else if !desktop.eventSounds && category.isEventSound {
            sound = .skip(.eventSoundsOff)
        } else if !desktop.inputFeedbackSounds && entry.input && category.isEventSound {
            sound = .skip(.inputFeedbackOff)
        } else if state.interrupted {
            sound = category.interruptionRule == .notStarted ? .skip(.interrupted) : .deferred(gain: gain)
        } else if state.volume <= 0 {
            sound = .skip(.volumeZero)
        } else {
            sound = .play(gain: gain)
        }

        // Which preset is due, before the haptics switch is consulted.
        var due: String? = request.haptic ? entry.haptic : nil
        if category == .alert && (sound == .skip(.silent) || state.vibrateOnAlert) {
            due = entry.haptic ?? settings.defaultAlertHaptic
        }
        let haptic: HapticOutcome
        switch (due, sound) {
        case (nil, _): haptic = .none
        case (_, .skip(.locked)): haptic = .skip(.locked)
        case (_, .skip(.doNotDisturb)): haptic = .skip(.doNotDisturb)
        case (_, .skip(.interrupted)), (_, .deferred): haptic = .skip(.interrupted)
        case (let preset?, _): haptic = state.haptics ? .vibrate(preset: preset) : .skip(.hapticsOff)
        }
        return Decision(category: category, sound: sound, haptic: haptic)
    }

    /// Decides whether a vibration request (preset or pattern) may happen;
    /// an app whose level is `silent` vibrates nothing.
    /// feedbackd's per-app profile (`desktop`) lowers it as `[apps]` does.
    public static func decideVibration(
        state: SystemState, app: String? = nil, settings: PolicySettings = .defaults, desktop: DesktopState = .defaults
    ) -> SkipReason? {
        let level = min(app.flatMap { settings.apps[$0] }?.profile ?? .full, app.flatMap { desktop.appProfiles[$0] } ?? .full)
        return level.limiting(state).haptics ? nil : .hapticsOff
    }

    private static func clamp(_ v: Double) -> Double {
        v.isFinite ? min(max(v, 0), 1) : 0
    }
}

/// What became of a request, as carried out: the wire's `outcome=`, typed.
/// A play is one of the behaviour model's four shapes or `deferred`; a
/// vibrate request is `vibrate` or `skip`.
public enum FeedbackOutcome: String, Sendable, Equatable, CaseIterable {
    case play, skip, vibrateInstead = "vibrate-instead", playAndVibrate = "play-and-vibrate", deferred, vibrate

    /// Whether the sound was not played (skipped, or replaced by a vibration).
    public var silencedSound: Bool { self == .skip || self == .vibrateInstead }
}
