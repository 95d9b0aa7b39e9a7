import SysoundCore
import Foundation
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// Sounds the tests synthesize and the measurements they compare.
enum Fixture {
    /// A fresh temporary directory, removed when the test ends.
    static func directory(_ test: XCTestCase) throws -> String {
        try temporaryDirectory("sysound-audio", removedAfter: test)
    }

    /// A tone with a short fade in and out (no clicks), as float samples.
    static func tone(
        frequency: Double, seconds: Double, rate: Int = 48_000, channels: Int = 1, amplitude: Float = 0.5
    ) -> [Float] {
        let frames = Int(seconds * Double(rate))
        let fade = max(1, min(frames / 4, rate / 200))
        var out = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let env = Float(min(1, Double(min(i, frames - 1 - i)) / Double(fade)))
            let s = amplitude * env * Float(sin(2 * Double.pi * frequency * Double(i) / Double(rate)))
            for c in 0..<channels {
                // The right channel a fifth up, so channel swaps would show.
                out[i * channels + c] = c == 0 ? s : amplitude * env * Float(sin(2 * Double.pi * frequency * 1.5 * Double(i) / Double(rate)))
            }
        }
        return out
    }

    /// Writes samples as a float WAV and returns the path.
    @discardableResult
    static func write(
        _ samples: [Float], channels: Int = 1, rate: Int = 48_000, to dir: String, name: String
    ) throws -> String {
        let path = dir + "/" + name
        try SoundFileWriter.write(samples, channels: channels, sampleRate: rate, to: path)
        return path
    }

    static func channel(_ interleaved: [Float], _ c: Int, of channels: Int = 2) -> [Float] {
        stride(from: c, to: interleaved.count, by: channels).map { interleaved[$0] }
    }

    static func peak(_ x: [Float]) -> Float { x.reduce(0) { max($0, abs($1)) } }

    static func rms(_ x: [Float]) -> Float {
        guard !x.isEmpty else { return 0 }
        return (x.reduce(0) { $0 + $1 * $1 } / Float(x.count)).squareRoot()
    }

    /// Pearson correlation of two equally long signals.
    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        let n = min(a.count, b.count)
        guard n > 1 else { return 0 }
        var sa = 0.0, sb = 0.0
        for i in 0..<n { sa += Double(a[i]); sb += Double(b[i]) }
        let ma = sa / Double(n), mb = sb / Double(n)
        var cov = 0.0, va = 0.0, vb = 0.0
        for i in 0..<n {
            let x = Double(a[i]) - ma, y = Double(b[i]) - mb
            cov += x * y; va += x * x; vb += y * y
        }
        return va > 0 && vb > 0 ? cov / (va * vb).squareRoot() : 0
    }

    /// Index of the first sample whose magnitude exceeds `threshold`.
    static func onset(_ x: [Float], threshold: Float = 1e-4) -> Int? {
        x.firstIndex { abs($0) > threshold }
    }

    /// Index just after the last sample whose magnitude exceeds `threshold`.
    static func end(_ x: [Float], threshold: Float = 1e-4) -> Int? {
        x.lastIndex { abs($0) > threshold }.map { $0 + 1 }
    }
}

extension XCTestCase {
    /// A loopback engine (stereo float32, 48 kHz), shut down after the test.
    func loopbackEngine(_ configure: (inout AudioSettings) -> Void = { _ in }) throws -> AudioEngine {
        var s = AudioSettings()
        configure(&s)
        let engine = try AudioEngine(settings: s, output: .loopback)
        addTeardownBlock { engine.shutdown() }
        return engine
    }
}

extension AudioEngine {
    /// Takes the engine's lock on a thread of its own, as a stalled caller
    /// or a long swap would, and holds it until the returned closure is
    /// called (30 s at most).
    func holdLockOnAThread() -> @Sendable () -> Void {
        let holding = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0)
        Thread {
            self.locked {
                holding.signal()
                _ = letGo.wait(timeout: .now() + 30)
            }
        }.start()
        holding.wait()
        return { letGo.signal() }
    }
}
