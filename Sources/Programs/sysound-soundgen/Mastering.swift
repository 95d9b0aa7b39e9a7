// Turns a synthesized clip into a shippable one: fades so nothing clicks,
// no DC offset, a common loudness, 16-bit samples. The quality rules the
// theme tests measure are enforced here first, so a bad recipe fails at
// generation time instead of shipping.
import Foundation

enum Mastering {
    /// The loudness every sound is normalized to (see `loudness`), in dBFS.
    static let targetLoudnessDb = -16.0
    /// No sample may exceed this, in dBFS.
    static let peakCeilingDb = -1.0
    /// The window of the short-term loudness measure, in milliseconds.
    static let loudnessWindowMs = 20.0

    /// Short-term loudness: the highest RMS over any `loudnessWindowMs`
    /// window (hop 1 ms), in dBFS. Short UI sounds are heard by their loudest
    /// moment, so this compares a 30 ms tick with a 300 ms chime fairly.
    static func loudness(_ x: [Double]) -> Double {
        let window = min(x.count, Int(loudnessWindowMs * sampleRate / 1000))
        guard window > 0 else { return -.infinity }
        let hop = Int(sampleRate / 1000)
        var best = 0.0
        var start = 0
        while start + window <= x.count {
            var sum = 0.0
            for i in start..<(start + window) { sum += x[i] * x[i] }
            best = max(best, sum / Double(window))
            start += hop
        }
        return 10 * log10(best)
    }

    static func decibels(_ linear: Double) -> Double { 20 * log10(linear) }

    /// Applies raised-cosine fades over the first and last milliseconds, so
    /// the clip starts and ends at exactly zero.
    static func fade(_ x: inout [Double], inMs: Double, outMs: Double) {
        let nIn = min(x.count, Int(inMs * sampleRate / 1000))
        let nOut = min(x.count, Int(outMs * sampleRate / 1000))
        for i in 0..<nIn {
            x[i] *= 0.5 - 0.5 * cos(Double.pi * Double(i) / Double(nIn))
        }
        for i in 0..<nOut {
            x[x.count - 1 - i] *= 0.5 - 0.5 * cos(Double.pi * Double(i) / Double(nOut))
        }
    }

    /// Removes the mean by subtracting a Hann-shaped offset: the ends stay at
    /// zero (no click reintroduced) and the sum becomes exactly zero.
    static func removeDC(_ x: inout [Double]) {
        let n = x.count
        guard n > 2 else { return }
        let hann = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n - 1)) }
        let c = x.reduce(0, +) / hann.reduce(0, +)
        for i in 0..<n { x[i] -= c * hann[i] }
    }

    /// Why a recipe's output cannot ship.
    struct Rejection: Error, CustomStringConvertible {
        var sound: String
        var problem: String
        var description: String { "sound \"\(sound)\": \(problem); adjust its recipe in Recipes.swift" }
    }

    /// Masters a clip and returns 16-bit samples.
    static func master(_ clip: Clip, name: String) throws -> [Int16] {
        var x = clip.samples
        fade(&x, inMs: 1.5, outMs: 8)
        removeDC(&x)
        let gain = pow(10, (targetLoudnessDb - loudness(x)) / 20)
        for i in x.indices { x[i] *= gain }
        let peak = x.reduce(0) { max($0, abs($1)) }
        guard decibels(peak) <= peakCeilingDb else {
            throw Rejection(
                sound: name,
                problem: String(
                    format: "peak %.2f dBFS at the target loudness exceeds the %.0f dBFS ceiling",
                    decibels(peak), peakCeilingDb))
        }
        // Round to nearest; no dither, so output depends on the recipe alone.
        return x.map { Int16(max(-32767, min(32767, ($0 * 32767).rounded()))) }
    }
}
