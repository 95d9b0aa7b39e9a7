import Foundation
import SysoundTestSupport
import XCTest

/// An AHAP's `AudioCustom` events are heard at the pattern's times: two
/// tone bursts told apart by pitch, at 0 and 0.4 s, through `sysound vibrate
/// --ahap FILE` to a daemon, recorded at the null sink. The daemon's first
/// sound starts with the request and the second from the haptics engine's
/// loop (`HapticsEngine.cue`), so what is checked is the distance between
/// them at the sink: the output's latency, the same for both, cancels.
final class ScoreSoundTests: DaemonTestCase {
    static let rate = MonitorRecording.sampleRate
    static let low = 1_000.0, high = 2_000.0
    /// Each burst's length: far shorter than the 400 ms between them, so the
    /// second is found after a silence.
    static let burstSeconds = 0.05
    static let secondAt = 0.4

    /// How far from the pattern's 400 ms the second burst may start. Both
    /// voices are mixed into one stream, which the server asks for a request
    /// at a time (96 frames on PulseAudio, 128 on PipeWire's floor:
    /// `Pulse.requestFloorFrames`): a voice started between two requests is
    /// heard from the next, so each onset lies up to one request after its
    /// start, and the distance is off by at most one request either way
    /// (2.7 ms). The rest is how late the loop's timer thread runs on a
    /// 2-core machine that builds beside the test (a millisecond or two);
    /// 8 ms holds both with room and is far below a score whose time was
    /// lost (0, or the whole 400 ms).
    static let toleranceMs = 8.0

    func testAnAHAPsAudioEventsAreHeardAtThePatternsTimes() throws {
        let directory = daemon.root + "/score"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, frequency) in [("low", Self.low), ("high", Self.high)] {
            let made = try Spawned.run("/usr/bin/sox", [
                "-n", "-r", "48000", "-c", "1", "-b", "16", "\(directory)/\(name).wav",
                "synth", "\(Self.burstSeconds)", "sine", "\(Int(frequency))", "vol", "0.5",
            ])
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        // The waveform paths are relative to the AHAP file, as Core Haptics takes them.
        let ahap = directory + "/moment.ahap"
        try """
            {
              "Version": 1.0,
              "Pattern": [
                { "Event": { "Time": 0.0, "EventType": "HapticTransient",
                             "EventParameters": [ { "ParameterID": "HapticIntensity", "ParameterValue": 1.0 } ] } },
                { "Event": { "Time": 0.0, "EventType": "AudioCustom", "EventWaveformPath": "low.wav" } },
                { "Event": { "Time": \(Self.secondAt), "EventType": "AudioCustom", "EventWaveformPath": "high.wav" } }
              ]
            }
            """.write(toFile: ahap, atomically: true, encoding: .utf8)

        let recording = try MonitorRecording()
        let result = try daemon.cli.run(["vibrate", "--ahap", ahap])
        // This machine has no vibrator: the CLI says the vibration failed; the sounds play all the same, as a paired sound does.
        let heard = try recording.samples(holdingSoundOf: Int((Self.secondAt + Self.burstSeconds) * Self.rate), threshold: 0.05, within: 5)
        let said = "(vibrate exited \(result.status): \(result.stderr))"

        let first = try XCTUnwrap(Signal.onset(heard, threshold: 0.05), "no sound of the score reached the sink \(said)")
        // The second burst: the first loud sample after the first burst has ended.
        let afterFirst = first + Int((Self.burstSeconds + 0.02) * Self.rate)
        let rest = Array(heard[min(afterFirst, heard.count)...])
        let second = try XCTUnwrap(Signal.onset(rest, threshold: 0.05).map { afterFirst + $0 },
                                   "one burst at the sink, not two: the score's second sound never came, or came with the first \(said)")
        XCTAssertEqual(pitch(of: heard, at: first), Self.low, "the first sound heard is not the pattern's first (low.wav)")
        XCTAssertEqual(pitch(of: heard, at: second), Self.high, "the second sound heard is not the pattern's second (high.wav)")

        let distanceMs = Double(second - first) / Self.rate * 1000
        XCTAssertEqual(distanceMs, Self.secondAt * 1000, accuracy: Self.toleranceMs,
                       "the second AudioCustom event was heard \(distanceMs) ms after the first, not at the pattern's \(Self.secondAt * 1000) ms")
        print("ScoreSoundTests: second sound \(String(format: "%.2f", distanceMs)) ms after the first (pattern: \(Self.secondAt * 1000) ms) on \(Pulse.server)")
    }

    /// Which of the two tones sounds in the 20 ms from `onset` on.
    func pitch(of x: [Float], at onset: Int) -> Double? {
        let window = x[onset..<min(x.count, onset + Int(0.02 * Self.rate))]
        let low = Signal.amplitude(of: Self.low, in: window), high = Signal.amplitude(of: Self.high, in: window)
        guard max(low, high) > 0.1 else { return nil }
        return low > high ? Self.low : Self.high
    }
}
