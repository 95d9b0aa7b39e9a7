/// The built-in haptic presets, named like UIFeedbackGenerator's styles and
/// Android's effects. `config/sysound.toml` may override or add to them.
///
/// Short pulses stay at or above ~10 ms: an eccentric-mass motor needs that
/// long to spin up enough to be felt.
public enum HapticPresets {
    /// The default presets by name.
    public static let defaults: [String: HapticPattern] = [
        // Impact styles (UIImpactFeedbackGenerator): one pulse each.
        "light": pattern((0.4, 20)),
        "medium": pattern((0.7, 25)),
        "heavy": pattern((1.0, 35)),
        "soft": pattern((0.5, 45)),
        "rigid": pattern((1.0, 12)),
        // Selection change (UISelectionFeedbackGenerator), Android's TICK / CLICK.
        "selection": pattern((0.4, 10)),
        "tap": pattern((0.6, 15)),
        // Notification styles (UINotificationFeedbackGenerator).
        "success": pattern((0.7, 25), (0, 60), (1.0, 35)),
        "warning": pattern((1.0, 35), (0, 80), (0.6, 25)),
        "error": pattern((1.0, 30), (0, 40), (1.0, 30), (0, 40), (1.0, 30)),
        // Long, unmistakable: alarms and ringing.
        "alarm": pattern((1.0, 400), (0, 200), (1.0, 400), (0, 200), (1.0, 400)),
        // What an alert vibrates with in silent mode (PolicySettings.defaultAlertHaptic).
        "alert": pattern((1.0, 150), (0, 100), (1.0, 150)),
    ]

    /// The names of the built-in presets, sorted.
    public static var names: [String] { defaults.keys.sorted() }

    /// `base` with `overrides` on top: the config's presets replace built-in
    /// ones of the same name and add new ones.
    public static func merged(_ overrides: [String: HapticPattern], over base: [String: HapticPattern] = defaults)
        -> [String: HapticPattern]
    {
        base.merging(overrides) { _, new in new }
    }

    private static func pattern(_ steps: (Double, Int)...) -> HapticPattern {
        HapticPattern(steps: steps.map { HapticStep(magnitude: $0.0, durationMs: $0.1) })
    }
}
