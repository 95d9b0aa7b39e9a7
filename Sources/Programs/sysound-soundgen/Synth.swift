// The synthesis primitives the recipes are built from. Everything here is
// deterministic: noise comes from a seeded PRNG of our own, sums run in a fixed
// order, and nothing reads the clock or the environment.
import SysoundCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The output rate of every shipped sound.
let sampleRate = 48_000.0

extension SplitMix64 {
    /// Uniform in [-1, 1), from the top 53 bits.
    mutating func bipolar() -> Double {
        Double(next() >> 11) / Double(1 << 52) - 1
    }
}

/// One partial of a tone: frequency ratio to the fundamental, level, and how
/// much faster than the fundamental it decays (higher partials die first).
struct Partial {
    var ratio: Double
    var level: Double
    var decayScale: Double = 1
}

/// A mono clip under construction, in floating point at `sampleRate`.
struct Clip {
    var samples: [Double]

    init(milliseconds: Double) {
        samples = Array(repeating: 0, count: Int((milliseconds * sampleRate / 1000).rounded()))
    }

    var durationMs: Double { Double(samples.count) * 1000 / sampleRate }

    private func index(ms: Double) -> Int { Int((ms * sampleRate / 1000).rounded()) }

    /// A raised-cosine release over a voice's last 5 ms, so a voice cut
    /// before it has decayed does not click in the middle of a clip.
    private static func release(_ n: Int, _ count: Int) -> Double {
        let width = min(count, Int(0.005 * sampleRate))
        let left = count - 1 - n
        return left >= width ? 1 : 0.5 - 0.5 * cos(Double.pi * Double(left) / Double(width))
    }

    /// Adds a tone at `atMs`: an exponential-decay envelope (time constant
    /// `decayMs`) after a raised-cosine attack, a fundamental that may glide
    /// exponentially from `hz` to `toHz`, and the given partials.
    mutating func tone(
        atMs: Double, lengthMs: Double, hz: Double, toHz: Double? = nil, level: Double = 1,
        attackMs: Double = 2, decayMs: Double, partials: [Partial] = [Partial(ratio: 1, level: 1)]
    ) {
        let start = index(ms: atMs)
        let count = min(index(ms: lengthMs), samples.count - start)
        guard count > 0 else { return }
        let attack = max(1, index(ms: attackMs))
        let endHz = toHz ?? hz
        // Phase is accumulated per partial so a glide stays continuous.
        var phases = Array(repeating: 0.0, count: partials.count)
        for n in 0..<count {
            let t = Double(n) / sampleRate
            let progress = Double(n) / Double(count)
            let f0 = hz * pow(endHz / hz, progress)
            let rise = n < attack ? 0.5 - 0.5 * cos(Double.pi * Double(n) / Double(attack)) : 1
            var sum = 0.0
            for (k, p) in partials.enumerated() {
                let env = exp(-t * 1000 / (decayMs / p.decayScale))
                sum += p.level * env * sin(phases[k])
                phases[k] += 2 * Double.pi * f0 * p.ratio / sampleRate
            }
            samples[start + n] += level * rise * Self.release(n, count) * sum
        }
    }

    /// Adds two-operator FM (a carrier modulated at `ratio` times its
    /// frequency, the index decaying with the amplitude): bells and mallets.
    mutating func fm(
        atMs: Double, lengthMs: Double, hz: Double, ratio: Double, index modIndex: Double,
        level: Double = 1, attackMs: Double = 1, decayMs: Double, indexDecayMs: Double
    ) {
        let start = index(ms: atMs)
        let count = min(index(ms: lengthMs), samples.count - start)
        guard count > 0 else { return }
        let attack = max(1, index(ms: attackMs))
        for n in 0..<count {
            let t = Double(n) / sampleRate
            let rise = n < attack ? 0.5 - 0.5 * cos(Double.pi * Double(n) / Double(attack)) : 1
            let env = exp(-t * 1000 / decayMs)
            let beta = modIndex * exp(-t * 1000 / indexDecayMs)
            let mod = beta * sin(2 * Double.pi * hz * ratio * t)
            samples[start + n] += level * rise * Self.release(n, count) * env * sin(2 * Double.pi * hz * t + mod)
        }
    }

    /// Adds band-passed noise (RBJ biquad, constant peak gain) with a short
    /// attack and exponential decay: clicks, shutters, whooshes.
    mutating func noise(
        atMs: Double, lengthMs: Double, centerHz: Double, q: Double, level: Double = 1,
        attackMs: Double = 0.5, decayMs: Double, seed: UInt64
    ) {
        let start = index(ms: atMs)
        let count = min(index(ms: lengthMs), samples.count - start)
        guard count > 0 else { return }
        var random = SplitMix64(seed: seed)
        var filter = BandPass(centerHz: centerHz, q: q)
        let attack = max(1, index(ms: attackMs))
        for n in 0..<count {
            let t = Double(n) / sampleRate
            let rise = n < attack ? 0.5 - 0.5 * cos(Double.pi * Double(n) / Double(attack)) : 1
            let env = exp(-t * 1000 / decayMs)
            samples[start + n] += level * rise * Self.release(n, count) * env * filter.process(random.bipolar())
        }
    }
}

/// A biquad band-pass filter (RBJ cookbook, 0 dB peak gain).
struct BandPass {
    private var b0, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    init(centerHz: Double, q: Double) {
        let w = 2 * Double.pi * centerHz / sampleRate
        let alpha = sin(w) / (2 * q)
        let a0 = 1 + alpha
        b0 = alpha / a0
        b2 = -alpha / a0
        a1 = -2 * cos(w) / a0
        a2 = (1 - alpha) / a0
    }

    mutating func process(_ x: Double) -> Double {
        let y = b0 * x + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        return y
    }
}
