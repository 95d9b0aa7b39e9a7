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
    // Android's named moments (HapticFeedbackConstants), each a composition
    // of its primitives (`composition`), rendered for the motor at hand.
    /// An action confirmed or completed (CONFIRM).
    case confirm
    /// An action refused or failed (REJECT): a double click.
    case reject
    /// A gesture began (GESTURE_START) or ended (GESTURE_END).
    case gestureStart = "gesture-start", gestureEnd = "gesture-end"
    /// A switch turned on (TOGGLE_ON): crisp; off (TOGGLE_OFF): dull.
    case toggleOn = "toggle-on", toggleOff = "toggle-off"
    /// An on-screen key pressed (KEYBOARD_PRESS) and released (KEYBOARD_RELEASE).
    case keyboardPress = "keyboard-press", keyboardRelease = "keyboard-release"
    /// A long press recognised (LONG_PRESS): heavy.
    case longPress = "long-press"
    /// A clock's or a timer picker's tick (CLOCK_TICK): faint.
    case clockTick = "clock-tick"
    /// A slider's or a list's detent (SEGMENT_TICK), and one of many in quick
    /// succession (SEGMENT_FREQUENT_TICK): fainter still.
    case segmentTick = "segment-tick", segmentFrequentTick = "segment-frequent-tick"
    /// A context menu opened by a click (CONTEXT_CLICK).
    case contextClick = "context-click"
    /// A drag began (DRAG_START).
    case dragStart = "drag-start"

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
        default: composition!.score.rendered(for: .reference)
        }
    }

    /// Android's moments as compositions of its primitives (nil for the
    /// iOS-named presets, which are step patterns).
    public var composition: HapticComposition? {
        let text: String? = switch self {
        case .confirm: "click"
        case .reject: "click,click@60"
        case .gestureStart: "tick:0.8"
        case .gestureEnd: "click:0.6"
        case .toggleOn: "click:0.8"
        case .toggleOff: "low-tick"
        case .keyboardPress: "click:0.6"
        case .keyboardRelease: "tick:0.5"
        case .longPress: "thud"
        case .clockTick: "tick:0.4"
        case .segmentTick: "tick:0.6"
        case .segmentFrequentTick: "tick:0.3"
        case .contextClick: "click:0.8"
        case .dragStart: "tick:0.7"
        default: nil
        }
        // The texts above are this file's own and parse; a typo fails every test.
        return text.map { try! HapticComposition(parsing: $0) }
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

    /// The composed moments of `presets` still at their built-in values, as
    /// the scores they are composed as: a player renders them for each motor
    /// (the configuration's own presets stay the patterns it wrote).
    public static func composed(_ presets: [String: HapticPattern]) -> [String: HapticScore] {
        var scores: [String: HapticScore] = [:]
        for moment in BuiltInHaptic.allCases {
            guard let composition = moment.composition, presets[moment.rawValue] == defaults[moment.rawValue] else { continue }
            scores[moment.rawValue] = composition.score
        }
        return scores
    }

    /// `base` with `overrides` on top: the config's presets replace built-in
    /// ones of the same name and add new ones.
    public static func merged(_ overrides: [String: HapticPattern], over base: [String: HapticPattern] = defaults)
        -> [String: HapticPattern]
    {
        base.merging(overrides) { _, new in new }
    }
}
