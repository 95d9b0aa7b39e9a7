/// The built-in haptic presets, named like UIFeedbackGenerator's styles and
/// Android's effects. `config/sysound.toml` may override or add to them.
///
/// Short pulses stay at or above ~10 ms: an eccentric-mass motor needs that
/// long to spin up enough to be felt.
/// The built-in presets: the one list of their names and patterns. Every
/// other place that names one (the library's `vibrate(.success)`, the
/// policy's alert haptic, the tests) refers to a case here.
public enum BuiltInHaptic: String, CaseIterable, Sendable {
    // Impact styles (UIImpactFeedbackGenerator): one pulse each.
    case light, medium, heavy, soft, rigid
    // Selection change (UISelectionFeedbackGenerator), Android's TICK / CLICK.
    case selection, tap
    // Notification styles (UINotificationFeedbackGenerator).
    case success, warning, error
    // Long, unmistakable: alarms and ringing.
    case alarm
    /// What an alert vibrates with in silent mode (`PolicySettings.defaultAlertHaptic`).
    case alert

    public var pattern: HapticPattern {
        switch self {
        case .light: Self.pattern((0.4, 20))
        case .medium: Self.pattern((0.7, 25))
        case .heavy: Self.pattern((1.0, 35))
        case .soft: Self.pattern((0.5, 45))
        case .rigid: Self.pattern((1.0, 12))
        case .selection: Self.pattern((0.4, 10))
        case .tap: Self.pattern((0.6, 15))
        case .success: Self.pattern((0.7, 25), (0, 60), (1.0, 35))
        case .warning: Self.pattern((1.0, 35), (0, 80), (0.6, 25))
        case .error: Self.pattern((1.0, 30), (0, 40), (1.0, 30), (0, 40), (1.0, 30))
        case .alarm: Self.pattern((1.0, 400), (0, 200), (1.0, 400), (0, 200), (1.0, 400))
        case .alert: Self.pattern((1.0, 150), (0, 100), (1.0, 150))
        }
    }

    private static func pattern(_ steps: (Double, Int)...) -> HapticPattern {
        HapticPattern(steps: steps.map { HapticStep(magnitude: $0.0, durationMs: $0.1) })
    }
}

public enum HapticPresets {
    /// The default presets by name (`BuiltInHaptic`).
    public static let defaults: [String: HapticPattern] = Dictionary(
        uniqueKeysWithValues: BuiltInHaptic.allCases.map { ($0.rawValue, $0.pattern) })

    /// The names of the built-in presets, sorted.
    public static var names: [String] { defaults.keys.sorted() }

    /// `base` with `overrides` on top: the config's presets replace built-in
    /// ones of the same name and add new ones.
    public static func merged(_ overrides: [String: HapticPattern], over base: [String: HapticPattern] = defaults)
        -> [String: HapticPattern]
    {
        base.merging(overrides) { _, new in new }
    }
}
