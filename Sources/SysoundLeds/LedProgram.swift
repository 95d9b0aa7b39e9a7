/// What one LED does, as the kernel's pattern trigger runs it: the daemon
/// writes `pattern` and `repeat` once and arms no timer of its own.
///
/// The software trigger ramps between two entries of different brightness
/// (Documentation/leds/ledtrig-pattern.rst), so every change of brightness
/// is a step through a zero-length entry: a square wave is
/// "B T B 0 0 T 0 0". `repeat` counts whole runs; after a finite run the
/// LED keeps the last brightness set, so a steady light and "off" are one
/// run of a constant pattern (one kernel timer, then none).
package enum LedProgram: Sendable, Equatable, CustomStringConvertible {
    case off
    /// On at `level` (0…max_brightness) until changed.
    case steady(level: Int)
    /// On `halfPeriodMs`, off `halfPeriodMs`, `cycles` times (nil: until changed), ending off.
    case blink(level: Int, halfPeriodMs: Int, cycles: Int?)

    /// A theme's `Led`: `frequency` in mHz (0 = steady), at `level`.
    package static func theme(level: Int, frequencyMilliHz: Int, cycles: Int? = nil) -> LedProgram {
        guard level > 0 else { return .off }
        guard frequencyMilliHz > 0 else { return .steady(level: level) }
        // Half a period in ms: 10^6 / mHz / 2, at least 1 ms.
        return .blink(level: level, halfPeriodMs: max(1, 500_000 / frequencyMilliHz), cycles: cycles)
    }

    /// The `pattern` attribute's text.
    package var pattern: String {
        switch self {
        case .off: "0 1 0 0\n"
        case .steady(let level): "\(level) 1 \(level) 0\n"
        case .blink(let level, let t, _): "\(level) \(t) \(level) 0 0 \(t) 0 0\n"
        }
    }

    /// The `repeat` attribute's value: -1 repeats for ever.
    package var repeatCount: Int {
        switch self {
        case .off, .steady: 1
        case .blink(_, _, let cycles): cycles ?? -1
        }
    }

    /// How long a bounded program runs, in ms; nil when it runs until changed.
    package var durationMs: Int? {
        if case .blink(_, let t, let cycles?) = self { return 2 * t * cycles }
        return nil
    }

    /// The same program at another level (each channel of an RGB light has its own).
    func at(level: Int) -> LedProgram {
        switch self {
        case .off: .off
        case .steady: level > 0 ? .steady(level: level) : .off
        case .blink(_, let t, let cycles): level > 0 ? .blink(level: level, halfPeriodMs: t, cycles: cycles) : .off
        }
    }

    package var description: String {
        switch self {
        case .off: "off"
        case .steady(let level): "steady at \(level)"
        case .blink(let level, let t, let cycles):
            "blinking at \(level), \(500_000 / max(t, 1)) mHz" + (cycles.map { ", \($0) times" } ?? "")
        }
    }
}
