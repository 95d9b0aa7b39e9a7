import SysoundCore

/// What a haptic is before a device plays it: steps the caller wrote, played
/// alike everywhere, or a designer's description (an AHAP pattern, a
/// composition of Android's primitives), played as well as each motor can.
package enum HapticSource: Sendable, Equatable {
    case pattern(HapticPattern)
    case score(HapticScore)
}

/// One vibration as each device plays it, decided by the engine before any
/// device is told: a step pattern is one plan for every device; a score is
/// rendered for each device's motor (`HapticScore.rendered(for:)`), so that
/// an on/off motor gets on-time duty cycles while an amplitude motor beside
/// it gets levels, each from the same score and on the same clock.
struct Rendition: Sendable {
    /// The plan of a step pattern, the same on every motor.
    private let common: PatternPlan?
    /// A score's plans for the motors in use when it was asked for; a device
    /// that joins later with another motor gets its plan rendered then.
    private let plans: [MotorAbility: PatternPlan]
    private let score: HapticScore?
    private let intensity: Double
    /// The device profile's minimum pulse, applied to every plan (`PatternPlan`).
    private let minimumPulseMs: Int

    /// - Throws: `.invalidPattern` when a rendering is not a pattern a device
    ///   can play (a score with no vibration in it).
    init(_ source: HapticSource, intensity: Double, minimumPulseMs: Int, motors: some Sequence<MotorAbility>) throws(HapticsError) {
        self.intensity = intensity
        self.minimumPulseMs = minimumPulseMs
        switch source {
        case .pattern(let pattern):
            try HapticsError.validate(pattern)
            common = PatternPlan(pattern, intensity: intensity, minimumPulseMs: minimumPulseMs)
            plans = [:]
            score = nil
        case .score(let score):
            var plans: [MotorAbility: PatternPlan] = [:]
            for motor in motors where plans[motor] == nil {
                let pattern = score.rendered(for: motor)
                try HapticsError.validate(pattern)
                plans[motor] = PatternPlan(pattern, intensity: intensity, minimumPulseMs: minimumPulseMs)
            }
            common = nil
            self.plans = plans
            self.score = score
        }
    }

    /// `plan` on every device.
    init(_ plan: PatternPlan) {
        common = plan
        plans = [:]
        score = nil
        intensity = 1
        minimumPulseMs = 0
    }

    /// What a device with `motor` plays.
    func plan(for motor: MotorAbility) -> PatternPlan {
        if let common { return common }
        if let plan = plans[motor] { return plan }
        guard let score else { return PatternPlan(HapticPattern(steps: []), intensity: intensity) }
        return PatternPlan(score.rendered(for: motor), intensity: intensity, minimumPulseMs: minimumPulseMs)
    }

    /// How long the longest of its plans lasts: until then it plays.
    var durationMs: Int { common?.durationMs ?? plans.values.map(\.durationMs).max() ?? 0 }

    /// The shortest first step among its plans: how late a start may be and still play every device's first step.
    var shortestFirstStepMs: Int {
        (common.map { [$0] } ?? Array(plans.values)).compactMap { $0.segments.first?.durationMs }.min() ?? 0
    }
}
