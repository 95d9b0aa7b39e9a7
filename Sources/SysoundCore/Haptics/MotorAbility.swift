/// What a vibration motor can play, which decides how a `HapticScore` is
/// rendered for it (Android's `hasAmplitudeControl`, iOS's
/// `capabilitiesForHardware`).
package struct MotorAbility: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Levels between off and full (FF_RUMBLE or FF_CONSTANT levels the driver
    /// honours); false for motors that are only on or off (gpio-vibrator).
    package var amplitudeControl: Bool
    /// Eccentric-mass motors spin up slowly; linear actuators follow short pulses.
    package var motor: MotorKind
    /// The shortest pulse felt (the device profile's; `MotorKind`'s typical value otherwise).
    package var minimumPulseMs: Int

    package init(amplitudeControl: Bool, motor: MotorKind, minimumPulseMs: Int) {
        self.amplitudeControl = amplitudeControl
        self.motor = motor
        self.minimumPulseMs = minimumPulseMs
    }

    /// Sharpness is rendered as shorter, crisper taps only where the motor
    /// follows them: a linear actuator with amplitude control. An
    /// eccentric-mass motor needs its minimum pulse to be felt at all, and an
    /// on/off motor has no level to shape.
    package var followsSharpness: Bool { amplitudeControl && motor == .lra }

    /// The step the renderer samples intensity curves at: ff-memless plays in
    /// jiffies (4 ms at HZ=250), and a motor does not follow faster changes
    /// than its shortest felt pulse.
    package var curveStepMs: Int { max(10, minimumPulseMs) }

    /// How long a transient of `sharpness` lasts here: 20 ms for the dullest
    /// on a linear actuator down to 10 ms for the sharpest (linear actuators
    /// feel 7–15 ms pulses; the presets stay at or above 10 ms, where a motor
    /// has spun up enough to be felt), never shorter than the motor's minimum pulse.
    package func transientMs(sharpness: Double) -> Int {
        let base = followsSharpness ? Int((20 - 10 * min(max(sharpness, 0), 1)).rounded()) : 15
        return max(base, minimumPulseMs)
    }

    /// The motor the built-in presets are written for: a linear actuator with
    /// amplitude control.
    package static let reference = MotorAbility(amplitudeControl: true, motor: .lra, minimumPulseMs: 0)

    package var description: String {
        "\(amplitudeControl ? "amplitude control" : "on/off only"), \(motor.rawValue), pulses ≥ \(minimumPulseMs) ms"
    }

    /// Drivers whose motors are only on or off, whatever magnitude is asked
    /// (the vibrator facts: gpio-vibra switches a GPIO; sc27xx reads only the
    /// weak magnitude as on/off; drv2665 ignores the magnitude).
    package static let onOffDriverNames = ["gpio-vibrator", "sc27xx-vibrator", "drv2665:haptics"]

    /// The ability of a device named `name` under `profile` (nil: no device
    /// profile matched this machine).
    package static func of(deviceName name: String, profile: HapticProfile?) -> MotorAbility {
        let onOff = onOffDriverNames.contains(name)
        // An on/off motor without a profile is assumed eccentric-mass (all
        // the on/off drivers above drive such motors on phones).
        let motor = profile?.motor ?? (onOff ? .erm : .lra)
        let minimum = profile?.minimumPulseMs ?? (motor == .erm ? 40 : 0)
        return MotorAbility(amplitudeControl: !onOff, motor: motor, minimumPulseMs: minimum)
    }
}

extension HapticScore.Event {
    /// When this event stops vibrating on `motor`.
    package func endMs(on motor: MotorAbility) -> Int {
        switch self {
        case .transient(let t, _, let s): t + motor.transientMs(sharpness: s)
        case .continuous(let t, let d, _, _, _): t + d
        }
    }
}

extension HapticScore {
    /// The score as steps `motor` can play: levels where it has amplitude
    /// control, on-time where it is only on or off (a stronger moment is a
    /// longer pulse, never one shorter than the motor's minimum), taps as
    /// long as the motor's sharpness allows, curves sampled at the motor's step.
    /// Overlapping events add up and clip at full, as the kernel's do.
    package func rendered(for motor: MotorAbility) -> HapticPattern {
        let total = events.map { $0.endMs(on: motor) }.max() ?? 0
        guard total > 0 else { return HapticPattern(steps: []) }
        var level = [Double](repeating: 0, count: total)
        for event in events {
            switch event {
            case .transient(let t, let i, let s):
                for ms in t..<t + motor.transientMs(sharpness: s) { level[ms] = min(1, level[ms] + i) }
            case .continuous(let t, let d, let i, _, let curve):
                // The curve is sampled at the middle of each of the motor's
                // steps, so a ramp becomes a staircase the motor can follow,
                // not a change every millisecond.
                let step = motor.curveStepMs
                for ms in t..<t + d {
                    let sampleAt = min(t + (ms - t) / step * step + step / 2, t + d)
                    level[ms] = min(1, level[ms] + i * curve.level(atMs: sampleAt))
                }
            }
        }
        guard motor.amplitudeControl else { return HapticPattern(steps: Self.steps(Self.onTime(level, motor: motor))) }
        // Levels rounded to twentieths, so that a curve sampled on a fine grid
        // does not become a step per sample with no felt difference; coarser
        // where a long, curved score would pass the pattern's step limit.
        for grades in [20.0, 10, 5, 2, 1] {
            let steps = Self.steps(level.map { ($0 * grades).rounded() / grades })
            if steps.count <= HapticPattern.maximumSteps || grades == 1 { return HapticPattern(steps: steps) }
        }
        return HapticPattern(steps: [])
    }

    /// On/off rendering: each stretch that vibrates becomes a window of twice
    /// the minimum pulse (at least 20 ms) that is on for its mean level's
    /// share, never less than the minimum pulse; from the window's end the
    /// next stretch is looked for.
    private static func onTime(_ level: [Double], motor: MotorAbility) -> [Double] {
        let minimum = max(motor.minimumPulseMs, 1)
        let window = max(2 * minimum, 20)
        var out = [Double](repeating: 0, count: level.count)
        var t = 0
        while t < level.count {
            guard level[t] > 0 else { t += 1; continue }
            let end = min(t + window, level.count)
            let mean = level[t..<end].reduce(0, +) / Double(window)
            let on = min(max(Int((mean * Double(window)).rounded()), minimum), window)
            if t + on > out.count { out += [Double](repeating: 0, count: t + on - out.count) }
            for ms in t..<t + on { out[ms] = 1 }
            // A stretch that goes on past the window starts the next window there.
            t = level[end - 1] > 0 ? end : t + on
        }
        return out
    }

    /// Runs of equal level as steps.
    private static func steps(_ level: [Double]) -> [HapticStep] {
        var steps: [HapticStep] = []
        for value in level {
            if let last = steps.last, last.magnitude == value {
                steps[steps.count - 1].durationMs += 1
            } else {
                steps.append(HapticStep(magnitude: value, durationMs: 1))
            }
        }
        while steps.last?.magnitude == 0 { steps.removeLast() }
        return steps
    }
}
