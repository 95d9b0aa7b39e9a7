import SysoundCore

/// A pattern prepared for playing: runs of equal magnitude merged, offsets
/// from the pattern's start, intensity and the profile's minimum pulse
/// applied, and a pulse that repeats after equal gaps handed to the kernel.
struct PatternPlan: Equatable, Sendable {
    struct Segment: Equatable, Sendable {
        var offsetMs: Int
        /// The whole segment: `count` × (`gapMs` + `pulseMs`).
        var durationMs: Int
        var magnitude: Double
        /// The pause before each pulse (the effect's `replay.delay`).
        var gapMs = 0
        /// How many times the kernel plays the pulse (EV_FF's value).
        var count = 1

        /// One pulse's length (the effect's `replay.length`).
        var pulseMs: Int { durationMs / max(count, 1) - gapMs }
    }

    var segments: [Segment]
    var durationMs: Int

    /// `minimumPulseMs` (the device profile's) lengthens shorter vibrating
    /// steps: a pulse an eccentric-mass motor does not feel is no pulse.
    init(_ pattern: HapticPattern, intensity: Double, minimumPulseMs: Int = 0) {
        var segments: [Segment] = []
        var offset = 0
        for var step in pattern.steps {
            let m = step.magnitude * intensity
            if m > 0 && step.durationMs < minimumPulseMs { step.durationMs = minimumPulseMs }
            if var last = segments.last, last.magnitude == m {
                last.durationMs += step.durationMs
                segments[segments.count - 1] = last
            } else {
                segments.append(Segment(offsetMs: offset, durationMs: step.durationMs, magnitude: m))
            }
            offset += step.durationMs
        }
        self.segments = Self.repeated(segments)
        self.durationMs = offset
    }

    /// Runs of two or more equal (gap, pulse) pairs become one segment the
    /// kernel repeats: an EV_FF play with value N plays the effect N times,
    /// waiting `replay.delay` before each, so the engine's timer wakes once
    /// for the run instead of twice per pulse. ("error": pulse, then
    /// gap + pulse twice.) ff-memless counts the gaps in jiffies, as it does
    /// the lengths: 4 ms steps at HZ=250, the same rounding a pulse gets.
    static func repeated(_ segments: [Segment]) -> [Segment] {
        var result: [Segment] = []
        var i = 0
        while i < segments.count {
            let gap = segments[i]
            guard gap.magnitude == 0, i + 1 < segments.count else { result.append(gap); i += 1; continue }
            let pulse = segments[i + 1]
            var count = 1
            while i + 2 * count + 1 < segments.count,
                  segments[i + 2 * count].durationMs == gap.durationMs && segments[i + 2 * count].magnitude == 0,
                  segments[i + 2 * count + 1].durationMs == pulse.durationMs,
                  segments[i + 2 * count + 1].magnitude == pulse.magnitude {
                count += 1
            }
            guard count >= 2, gap.durationMs <= Int(UInt16.max) else { result.append(gap); i += 1; continue }
            result.append(Segment(
                offsetMs: gap.offsetMs, durationMs: count * (gap.durationMs + pulse.durationMs), magnitude: pulse.magnitude,
                gapMs: gap.durationMs, count: count))
            i += 2 * count
        }
        return result
    }
}
