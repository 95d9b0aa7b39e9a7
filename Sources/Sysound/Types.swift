import SysoundCore

// The model types an app names, re-exposed one by one: importing `Sysound`
// gives an app these and the service's own types, and nothing of the wire
// protocol or the engines behind it.

/// What a sound means to the user, which decides how the user's settings
/// treat it: `ambient` (the default), `soloAmbient`, `alert`, `playback`.
///
/// See <doc:CategoriesAndPolicy>.
public typealias SoundCategory = SysoundCore.SoundCategory

/// What the service did with a request: `play`, `skip`, `vibrateInstead`,
/// `playAndVibrate`, `deferred` (until an interruption ends) or `vibrate`.
public typealias FeedbackOutcome = SysoundCore.FeedbackOutcome

/// Why a sound or a vibration was silenced by the user's settings: `silent`,
/// `locked`, `interrupted`, `volumeZero`, `hapticsOff`.
public typealias SkipReason = SysoundCore.SkipReason

/// Why a vibration that was due did not start: the settings (`policy`), no
/// haptic device, a more important vibration running, or the device still
/// receiving its effects.
public typealias HapticSkipReason = SysoundCore.HapticSkipReason

/// The built-in haptic presets, named like UIFeedbackGenerator's styles:
/// `light`, `medium`, `heavy`, `soft`, `rigid`, `selection`, `tap`,
/// `success`, `warning`, `error`, `alarm`, `alert`, and Android's named moments
/// (`confirm`, `reject`, `toggle-on`, `keyboard-press`, …), composed of its primitives.
public typealias BuiltInHaptic = SysoundCore.BuiltInHaptic

/// An ad-hoc vibration: steps of magnitude (0–1) and duration, such as
/// `try HapticPattern(parsing: "1:30,0:40,0.6:20")`.
public typealias HapticPattern = SysoundCore.HapticPattern

/// One step of a ``HapticPattern``.
public typealias HapticStep = SysoundCore.HapticStep

/// A haptic as designers describe it: transient and continuous events with
/// intensity and sharpness, intensity curves and sounds at points of it,
/// rendered for the motor that plays it. A Core Haptics AHAP file reads into
/// one (``SoundService/vibrate(ahap:intensity:)``), and so does a
/// ``HapticComposition``.
public typealias HapticScore = SysoundCore.HapticScore

/// Android's haptic primitives in sequence, each with a scale and a delay:
/// `try HapticComposition(parsing: "click,tick:0.5@40,quick-rise")`.
public typealias HapticComposition = SysoundCore.HapticComposition

/// Android's eight haptic primitives (click, tick, low tick, thud, spin,
/// quick rise, slow rise, quick fall).
public typealias HapticPrimitive = SysoundCore.HapticPrimitive

/// Why an AHAP pattern was refused: its line, key and what is expected.
public typealias AHAPError = SysoundCore.AHAPError

/// A haptic preset by name: a built-in one (`HapticPreset(.heavy)`), or any
/// preset of the configuration (`"door-knock"`).
public struct HapticPreset: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The preset's name, as the configuration knows it.
    public let name: String

    /// A preset of the configuration by name.
    public init(_ name: String) { self.name = name }

    /// A preset by name, from a string literal: `vibrate("door-knock")`.
    public init(stringLiteral name: String) { self.name = name }

    /// The preset's name.
    public var description: String { name }

    /// A built-in preset (`vibrate(.success)` takes one directly).
    public init(_ builtIn: BuiltInHaptic) { self.name = builtIn.rawValue }

    /// Every built-in preset; a configuration may add more.
    public static var builtIn: [HapticPreset] { BuiltInHaptic.allCases.map(HapticPreset.init) }
}

/// The flash for alerts: alerts, messages, calls and alarms also flash a
/// light (`setFlashForAlerts(_:)`).
public typealias FlashForAlerts = SysoundCore.FlashForAlerts

/// The user's settings that decide whether a sound or a vibration happens.
///
/// The service keeps them in the state directory, where the desktop shell,
/// `sysound silent on` and an app (`setSilent(_:)`) change
/// them; ``SoundService/stateChanges()`` follows them.
public struct SoundSettings: Sendable, Equatable, Hashable {
    /// The ring/silent switch: silences everything but `playback`.
    public var silent: Bool
    /// The screen lock: silences `ambient` and `soloAmbient`.
    public var locked: Bool
    /// The system volume, 0–1: multiplies every sound; 0 mutes all, playback included.
    public var volume: Double
    /// The haptics switch: when off, nothing vibrates.
    public var haptics: Bool
    /// Alerts vibrate together with their sound even when not silent.
    public var vibrateOnAlert: Bool
    /// An interruption (e.g. a phone call) is in progress.
    public var interrupted: Bool
    /// The flash for alerts: off, on, or only in silent mode.
    public var flashForAlerts: FlashForAlerts

    /// Settings as given; the defaults are those of a state directory without any setting.
    public init(
        silent: Bool = false, locked: Bool = false, volume: Double = 1, haptics: Bool = true,
        vibrateOnAlert: Bool = false, interrupted: Bool = false, flashForAlerts: FlashForAlerts = .off
    ) {
        self.silent = silent
        self.locked = locked
        self.volume = volume
        self.haptics = haptics
        self.vibrateOnAlert = vibrateOnAlert
        self.interrupted = interrupted
        self.flashForAlerts = flashForAlerts
    }

    init(_ state: SystemState) {
        self.init(
            silent: state.silent, locked: state.locked, volume: state.volume, haptics: state.haptics,
            vibrateOnAlert: state.vibrateOnAlert, interrupted: state.interrupted, flashForAlerts: state.flash)
    }
}
