/// One step of a vibration: hold `magnitude` for `durationMs` milliseconds.
public struct HapticStep: Sendable, Equatable, Hashable {
    /// Strength, 0 (motor off) to 1 (full).
    public var magnitude: Double
    /// How long the step lasts, in milliseconds.
    public var durationMs: Int

    public init(magnitude: Double, durationMs: Int) {
        self.magnitude = magnitude
        self.durationMs = durationMs
    }
}

/// A vibration waveform: steps of (magnitude, duration), like Android's
/// `VibrationEffect.createWaveform` and feedbackd's VibraPattern.
///
/// Text form, for the CLI and the wire: `magnitude:ms` steps separated by
/// commas, e.g. `1.0:20,0:40,0.6:30`.
public struct HapticPattern: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var steps: [HapticStep]

    /// Limits that keep a request from tying up the motor or the scheduler.
    public static let maximumSteps = 128
    public static let maximumStepMs = 10_000
    public static let maximumTotalMs = 30_000

    public init(steps: [HapticStep]) {
        self.steps = steps
    }

    /// Total length in milliseconds.
    public var durationMs: Int { steps.reduce(0) { $0 + $1.durationMs } }

    /// The same pattern with every magnitude multiplied by `factor` (0–1).
    public func scaled(by factor: Double) -> HapticPattern {
        let f = min(max(factor, 0), 1)
        return HapticPattern(steps: steps.map { HapticStep(magnitude: $0.magnitude * f, durationMs: $0.durationMs) })
    }

    public var description: String {
        steps.map { "\(Self.format($0.magnitude)):\($0.durationMs)" }.joined(separator: ",")
    }

    private static func format(_ m: Double) -> String {
        Double(Int(m)) == m ? String(Int(m)) : String(m)
    }

    /// Parses the text form.
    ///
    /// - Throws: `HapticPatternError` naming the step and what is expected.
    public init(parsing text: String) throws(HapticPatternError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !text.isEmpty else { throw .empty }
        guard parts.count <= Self.maximumSteps else { throw .tooManySteps(parts.count) }
        var steps: [HapticStep] = []
        var total = 0
        for (index, part) in parts.enumerated() {
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            let stepText = String(part)
            guard fields.count == 2 else { throw .malformedStep(index: index + 1, text: stepText) }
            let mText = ControlValue.trimmed(String(fields[0]))
            let dText = ControlValue.trimmed(String(fields[1]))
            guard let m = Double(mText), m.isFinite, m >= 0, m <= 1 else {
                throw .badMagnitude(index: index + 1, text: stepText)
            }
            guard let d = Int(dText), d > 0, d <= Self.maximumStepMs else {
                throw .badDuration(index: index + 1, text: stepText)
            }
            total += d
            guard total <= Self.maximumTotalMs else { throw .tooLong(total) }
            steps.append(HapticStep(magnitude: m, durationMs: d))
        }
        self.steps = steps
    }
}

/// Why a pattern's text form was refused.
public enum HapticPatternError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooManySteps(Int)
    case malformedStep(index: Int, text: String)
    case badMagnitude(index: Int, text: String)
    case badDuration(index: Int, text: String)
    case tooLong(Int)

    public var description: String {
        let form = "steps of magnitude:milliseconds separated by commas, e.g. 1.0:20,0:40,0.6:30"
        switch self {
        case .empty:
            return "empty pattern; expected \(form)"
        case .tooManySteps(let n):
            return "pattern has \(n) steps; at most \(HapticPattern.maximumSteps) are allowed"
        case .malformedStep(let i, let t):
            return "step \(i) \(ControlValue.quoted(t)) is not magnitude:milliseconds; expected \(form)"
        case .badMagnitude(let i, let t):
            return "step \(i) \(ControlValue.quoted(t)) has a magnitude outside 0–1"
        case .badDuration(let i, let t):
            return "step \(i) \(ControlValue.quoted(t)) needs a whole number of milliseconds from 1 to \(HapticPattern.maximumStepMs)"
        case .tooLong(let ms):
            return "pattern lasts at least \(ms) ms; at most \(HapticPattern.maximumTotalMs) ms are allowed"
        }
    }
}
