import Foundation
import SysoundTestSupport
import XCTest

/// Sounds played while both cores are busy must still arrive whole: with the
/// shipped configuration the daemon's PulseAudio stream must be refilled in
/// time, or the sink loses part of the clip (an underrun).
///
/// The acceptance test of the output path (docs/latency.md, "What is asked
/// of it"). With OpenAL Soft's own device (`output =
/// "openal"`, 96 × 4) at normal priority it failed on the 2-core CI machine
/// (2 and 4+ of 10 broken in two runs at load 10, 1 of 10 at 00:06 UTC).
/// The shipped daemon plays on its own stream (`output = "auto"`), refilled
/// from one thread one wake-up after the server asks, and makes its audio
/// threads real-time (`[audio] realtime_priority`; directly as root, as CI
/// runs, else through rtkit), and the daemon's log must say so.
final class UnderLoadTests: DaemonTestCase {
    /// Unexplained energy above this share: the clip did not arrive as played.
    let maxResidual = 0.05
    /// Where a tap starts: its first sample above −24 dBFS.
    static let onsetThreshold: Float = 0.0631

    func testTapsPlayedWhileBothCoresAreBusyArriveWhole() throws {
        // Its premise: on a machine that refuses real-time scheduling to all
        // (RealtimeBudgetTests covers the daemon's log there) nothing is promised under load.
        try RealtimeScheduling.require()
        let file = try readSamples(TestPaths.packageRoot + "/Sounds/tap.wav")
        XCTAssertEqual(file.channels, 1, "the test compares a mono clip")
        let clip = file.samples
        // A plain stream beside the daemon's (ControlTone, on the right): a
        // tap whose gap the control shares in the same frames was dropped by
        // a starved sound server, which no client's stream survives; only a
        // gap of the daemon's own stream is judged.
        let control = try ControlTone()
        defer { control.stop() }
        var serverDropped: [Int] = []
        // Two busy processes: one per core, at the daemon's own priority.
        let busy = try (0..<2).map { _ in try Spawned("/bin/sh", ["-c", "while :; do :; done"], output: .discard) }
        defer { busy.forEach { $0.signal(SIGKILL); _ = $0.wait() } }
        usleep(300_000)
        var broken: [String] = []
        // Ten taps, each on a device that has been idle a little longer than
        // the last: warm, then some after the idle pause (1 s) resumed it.
        for i in 0..<10 {
            let recording = try MonitorRecording()
            XCTAssertEqual(try daemon.cli.run(["play", "tap"]).status, 0)
            // A CLI slow to start, a lagging recorder: the window lasts until the tap is in it.
            let samples = try recording.samples(holdingSoundOf: clip.count, threshold: Self.onsetThreshold, within: 3)
            guard let residual = Self.residual(of: clip, in: samples) else {
                broken.append("tap \(i): never reached the sink within 3 s")
                continue
            }
            if residual >= maxResidual {
                let control = try recording.stereo(atLeast: Double(samples.count) / 48_000).right
                let onset = Signal.onset(samples, threshold: Self.onsetThreshold) ?? 0
                if ControlTone.own([onset], window: clip.count, control: control).isEmpty {
                    serverDropped.append(i)
                } else {
                    broken.append(String(format: "tap %d: %.0f %% of it not the clip", i, residual * 100))
                }
            }
            usleep(useconds_t(100_000 * i))
        }
        print("under load: taps dropped by the sound server with the control stream: \(serverDropped)")
        if serverDropped.count > 5 {
            throw XCTSkip("the sound server itself dropped \(serverDropped.count) of 10 taps (the control stream fell silent with them): too starved to judge the daemon")
        }
        XCTAssertEqual(broken, [], "taps with a gap at the sink while both cores were busy: \(daemon.log(tail: 5))")
        XCTAssertTrue(daemon.log(tail: 1000).contains("audio threads real-time"), "the daemon's audio threads were real-time: \(daemon.log(tail: 5))")
    }

    /// The clip aligned on the recording (best of ±1 ms around the first
    /// sample above −24 dBFS) with its best gain: the share of the recorded
    /// energy over the clip's length, and the 0.5 ms before it, that the
    /// clip does not explain. A gap leaves the rest of the clip unexplained.
    static func residual(of clip: [Float], in x: [Float]) -> Double? {
        let threshold = onsetThreshold
        guard let cross = clip.firstIndex(where: { abs($0) > threshold }),
              let onset = Signal.onset(x, threshold: threshold) else { return nil }
        var best: (start: Int, explained: Double)?
        let clipEnergy = clip.reduce(0.0) { $0 + Double($1) * Double($1) }
        for start in (onset - cross - 48)...(onset - cross + 48) where start >= 24 && start + clip.count <= x.count {
            var dot = 0.0
            for j in clip.indices { dot += Double(x[start + j]) * Double(clip[j]) }
            let explained = dot > 0 ? dot * dot / clipEnergy : 0
            if explained > (best?.explained ?? -1) { best = (start, explained) }
        }
        guard let best else { return nil }
        var energy = 0.0
        for j in (best.start - 24)..<(best.start + clip.count) { energy += Double(x[j]) * Double(x[j]) }
        return energy > 0 ? max(0, 1 - best.explained / energy) : nil
    }
}
