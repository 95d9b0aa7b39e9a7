import Foundation
import SysoundTestSupport
import XCTest

/// An AHAP's `AudioCustom` events are heard at the pattern's times: two
/// tone bursts told apart by pitch, at 0 and 0.4 s, through `sysound vibrate
/// --ahap FILE` to a daemon, recorded at the null sink. The daemon's first
/// sound starts with the request and the second from the haptics engine's
/// loop (`HapticsEngine.cue`), so what is checked is the distance between
/// them at the sink: the output's latency, the same for both, cancels. The
/// output is kept running (`idle_pause_ms = 0`): a paused one adds its
/// resume to the first sound only, which is figure 2's to measure, not the
/// score's timing.
final class ScoreSoundTests: XCTestCase {
    var daemon: DaemonProcess!
    /// Whether the CLI's message of the first round was printed (every round's is the same).
    var toldVibrate = false

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Pulse.require()
        daemon = try DaemonProcess(config: "[audio]\nidle_pause_ms = 0\n")
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, "sysound serve did not exit 0: \(daemon.log(tail: 20))") }
        super.tearDown()
    }

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
    /// lost (0, or the whole 400 ms). The score is played until `rounds`
    /// rounds came out clean (two whole bursts, low then high), at most
    /// `attempts` times, and the clean rounds' median distance is judged:
    /// beside a full build on the 2 cores (load 7) one round in four was
    /// 10–70 ms off or split by a gap, either way (the loop's timer late, the
    /// server dropping audio of every stream: docs/reliability.md, "Dips
    /// that are the server's"), which no score's timing explains.
    static let toleranceMs = 8.0
    static let rounds = 5
    static let attempts = 8

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

        var distances: [Double] = [], broken: [String] = []
        for _ in 0..<Self.attempts where distances.count < Self.rounds {
            switch try round(playing: ahap) {
            case .success(let distance): distances.append(distance)
            case .failure(let why): broken.append(why.text)
            }
        }
        print("ScoreSoundTests: second sound \(distances.map { String(format: "%.2f", $0) }) ms after the first (pattern: \(Self.secondAt * 1000) ms) on \(Pulse.server); rounds not clean: \(broken)")
        // One clean round is not judged alone: a late timer in it would fail the test.
        guard distances.count >= 3 else {
            return XCTFail("the score was not heard as two sounds \(Int(Self.secondAt * 1000)) ms apart in \(Self.attempts) tries: \(broken)")
        }
        let median = distances.sorted()[distances.count / 2]
        XCTAssertEqual(median, Self.secondAt * 1000, accuracy: Self.toleranceMs,
                       "the second AudioCustom event was heard \(distances) ms after the first, not at the pattern's \(Self.secondAt * 1000) ms")
    }

    struct Unclean: Error { var text: String }

    /// Plays the score once: how far apart (ms) its two sounds were heard, or
    /// why the recording is not the two bursts whole, low then high.
    func round(playing ahap: String) throws -> Result<Double, Unclean> {
        let recording = try MonitorRecording()
        let result = try daemon.cli.run(["vibrate", "--ahap", ahap])
        // This machine has no vibrator: the CLI says the vibration failed; the sounds play all the same, as a paired sound does.
        if result.status != 0 && !toldVibrate { print("ScoreSoundTests: vibrate exited \(result.status): \(result.stderr)") }
        toldVibrate = true
        let heard = try recording.samples(
            holdingSoundOf: Int((Self.secondAt + Self.burstSeconds + 0.1) * Self.rate), threshold: 0.05, within: 5)
        // Both bursts have ended before the next round's mark.
        usleep(100_000)
        let found = bursts(in: heard)
        let shape = found.map { "\($0.pitch.map { "\(Int($0)) Hz" } ?? "?") at \($0.start) for \($0.frames)" }
        let whole = Int(Self.burstSeconds * Self.rate)
        guard found.count == 2, found.allSatisfy({ abs($0.frames - whole) <= 96 }),
              found[0].pitch == Self.low, found[1].pitch == Self.high
        else {
            // Its message (no vibrator here) is printed above.
            return .failure(Unclean(text: "\(shape) (frames; vibrate exited \(result.status))"))
        }
        return .success(Double(found[1].start - found[0].start) / Self.rate * 1000)
    }

    /// The runs of sound in `x` (samples above 0.05 less than 1 ms apart:
    /// a tone's zero crossings are shorter gaps), with their pitch.
    func bursts(in x: [Float]) -> [(start: Int, frames: Int, pitch: Double?)] {
        var runs: [(start: Int, end: Int)] = []
        for (i, v) in x.enumerated() where abs(v) > 0.05 {
            if let last = runs.last, i - last.end <= 48 { runs[runs.count - 1].end = i } else { runs.append((i, i)) }
        }
        return runs.map { ($0.start, $0.end - $0.start + 1, pitch(of: x, at: $0.start)) }
    }

    /// Which of the two tones sounds in the 20 ms from `onset` on.
    func pitch(of x: [Float], at onset: Int) -> Double? {
        let window = x[onset..<min(x.count, onset + Int(0.02 * Self.rate))]
        let low = Signal.amplitude(of: Self.low, in: window), high = Signal.amplitude(of: Self.high, in: window)
        guard max(low, high) > 0.1 else { return nil }
        return low > high ? Self.low : Self.high
    }
}
