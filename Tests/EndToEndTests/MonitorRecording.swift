import Foundation
import XCTest

/// The null sink's monitor as recorded by the PulseAudio fixture
/// (`Tests/fixture/with-pulse.sh`): raw float32 stereo at 48 kHz, appended
/// continuously to `SYSOUND_MONITOR_FILE`.
///
/// Mark a point with `init()`, make a sound, then `samples(after:)` returns
/// the left channel recorded since the mark.
struct MonitorRecording {
    static let sampleRate = 48_000.0
    static let channels = 2

    let url: URL
    let startOffset: UInt64

    /// Marks the current end of the recording; skips the test when there is no
    /// fixture, unless SYSOUND_REQUIRE_PULSE=1 (CI), where that is a failure.
    init() throws {
        let env = ProcessInfo.processInfo.environment
        guard let path = env["SYSOUND_MONITOR_FILE"], env["PULSE_SERVER"] != nil else {
            if env["SYSOUND_REQUIRE_PULSE"] == "1" {
                throw FixtureError("SYSOUND_REQUIRE_PULSE=1 but no PulseAudio fixture: run under Tests/fixture/with-pulse.sh")
            }
            throw XCTSkip("no PulseAudio fixture; run under Tests/fixture/with-pulse.sh")
        }
        url = URL(fileURLWithPath: path)
        startOffset = try Self.size(of: url)
    }

    static func size(of url: URL) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// The left channel recorded since the mark, waiting until at least
    /// `seconds` of audio have arrived (the recorder delivers in small blocks).
    func samples(atLeast seconds: Double, timeout: Double = 10) throws -> [Float] {
        let frameBytes = UInt64(MemoryLayout<Float>.size * Self.channels)
        let wanted = UInt64(seconds * Self.sampleRate) * frameBytes
        let deadline = Date().addingTimeInterval(timeout)
        while try Self.size(of: url) - startOffset < wanted {
            guard Date() < deadline else { throw FixtureError("the monitor recorder delivered too little audio within \(timeout) s") }
            usleep(5_000)
        }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: startOffset)
        let data = handle.readData(ofLength: Int(wanted))
        let frames = data.count / Int(frameBytes)
        return data.withUnsafeBytes { raw in
            let floats = raw.bindMemory(to: Float.self)
            return (0..<frames).map { floats[$0 * Self.channels] }
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Measurements on recorded samples.
enum Signal {
    static func peak(_ x: ArraySlice<Float>) -> Float { x.reduce(0) { max($0, abs($1)) } }
    static func peak(_ x: [Float]) -> Float { peak(x[...]) }

    /// The power of one frequency (Goertzel), normalised so that a full-scale
    /// sine of that frequency gives its amplitude.
    static func amplitude(of frequency: Double, in x: ArraySlice<Float>, sampleRate: Double = 48_000) -> Double {
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
    static func onset(_ x: [Float], threshold: Float) -> Int? {
        x.firstIndex { abs($0) > threshold }
    }
}
