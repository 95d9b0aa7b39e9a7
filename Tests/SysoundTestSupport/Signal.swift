import Foundation

/// Measurements on recorded or rendered samples.
package enum Signal {
    package static func peak(_ x: ArraySlice<Float>) -> Float { x.reduce(0) { max($0, abs($1)) } }
    package static func peak(_ x: [Float]) -> Float { peak(x[...]) }

    /// The power of one frequency (Goertzel), normalised so that a full-scale
    /// sine of that frequency gives its amplitude.
    package static func amplitude(of frequency: Double, in x: ArraySlice<Float>, sampleRate: Double = 48_000) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        let coeff = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for v in x {
            let s0 = Double(v) + coeff * s1 - s2
            s2 = s1
            s1 = s0
        }
        let power = s1 * s1 + s2 * s2 - coeff * s1 * s2
        return 2 * sqrt(max(power, 0)) / Double(x.count)
    }

    /// The index of the first sample whose magnitude exceeds `threshold`.
    package static func onset(_ x: [Float], threshold: Float) -> Int? {
        x.firstIndex { abs($0) > threshold }
    }

    /// Pearson correlation of two sequences, over the shorter one's length.
    package static func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        let n = min(a.count, b.count)
        let x = a.prefix(n).map(Double.init), y = b.prefix(n).map(Double.init)
        let mx = x.reduce(0, +) / Double(n), my = y.reduce(0, +) / Double(n)
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for i in 0..<n {
            sxy += (x[i] - mx) * (y[i] - my)
            sxx += (x[i] - mx) * (x[i] - mx)
            syy += (y[i] - my) * (y[i] - my)
        }
        return sxy / (sxx * syy).squareRoot()
    }
}
