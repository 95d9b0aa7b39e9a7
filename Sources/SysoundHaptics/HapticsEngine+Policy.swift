import SysoundCore

extension HapticsEngine {
    /// Vibrates with a preset unless the user's settings forbid it, as the
    /// core policy decides (`Policy.decideVibration`: the haptics switch;
    /// silent mode does not stop haptics). Returns why it was skipped, or nil.
    @discardableResult
    package func vibrate(
        preset name: String, intensity: Double = 1, priority: Int = 0, state: SystemState
    ) throws(HapticsError) -> SkipReason? {
        if let reason = Policy.decideVibration(state: state) { return reason }
        try vibrate(preset: name, intensity: intensity, priority: priority)
        return nil
    }

    /// Vibrates with a pattern unless the user's settings forbid it; see
    /// `vibrate(preset:intensity:priority:state:)`.
    @discardableResult
    package func vibrate(
        pattern: HapticPattern, intensity: Double = 1, priority: Int = 0, state: SystemState
    ) throws(HapticsError) -> SkipReason? {
        if let reason = Policy.decideVibration(state: state) { return reason }
        try vibrate(pattern: pattern, intensity: intensity, priority: priority)
        return nil
    }
}
