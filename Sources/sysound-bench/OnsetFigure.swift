import Glibc
import Sysound
import SysoundAudio

/// Figure 2: launch → first sample at the sink, for the CLI (daemon up), the
/// library's `play()` in-process (embedded engine, device open and clip
/// loaded before timing; once with the device running, once paused for
/// idleness so every play resumes it) and `pactl play-sample`. Tools in
/// shuffled order, about 350 ms apart; the monitor is recorded all along
/// (MonitorRecorder).
enum OnsetFigure {
    enum Tool: Int, CaseIterable {
        case cli, library, libraryAfterPause, pactl
        var label: String {
            switch self {
            case .cli: "launch → sink: sysound play tap (daemon up)"
            case .library: "launch → sink: library play() in-process"
            case .libraryAfterPause: "launch → sink: library play() in-process, first after an idle pause"
            case .pactl: "launch → sink: pactl play-sample"
            }
        }
    }

    /// −24 dBFS.
    static let threshold = 0.0631
    static let spacing = 0.35
    /// The paused library's idle time: well inside `spacing` after the tap ends,
    /// so each of its plays finds the device paused.
    static let shortIdlePauseMs = 100

    static func run(_ c: BenchContext) throws {
        guard let daemon = c.daemon else { throw BenchError("no daemon") }
        try CLIProcessFigure.uploadSample(c)
        let clip = try SoundDecoder().decode(path: c.tapPath)
        // The tone crosses the threshold this many frames after its first sample.
        let loud = clip.samples.firstIndex { abs(Double($0)) > threshold }
        guard let loud else {
            throw BenchError("\(c.tapPath) never exceeds −24 dBFS; the onset method needs a louder clip")
        }
        let clipOnset = loud / max(clip.channels, 1)
        let clipFrames = clip.frames
        mkdir(c.work + "/state-library", 0o700)
        // The warm library never pauses; the other pauses 100 ms after each tap.
        let warmConfig = try IdleFigure.setIdlePause(0, in: try c.writeConfig(name: "onset"))
        let library = SoundService(stateDirectory: c.work + "/state-library", configPath: warmConfig, mode: .embedded)
        mkdir(c.work + "/state-library-paused", 0o700)
        let pausedConfig = try IdleFigure.setIdlePause(shortIdlePauseMs, in: try c.writeConfig(name: "onset-paused"))
        let pausing = SoundService(stateDirectory: c.work + "/state-library-paused", configPath: pausedConfig, mode: .embedded)
        // Opens the devices and loads the clip before any timing.
        _ = try library.play("tap")
        _ = try pausing.play("tap")

        let recorder = try MonitorRecorder(sink: c.sink)
        defer { recorder.stop() }
        Clock.sleep(seconds: 0.5)
        guard recorder.frameCount > 0 else { throw BenchError("parec on \(c.sink).monitor delivered nothing in 0.5 s") }

        let perTool = c.count(40, smoke: 4)
        var order = Tool.allCases.flatMap { [Tool](repeating: $0, count: perTool) }
        order.shuffle()
        var launches: [(Tool, UInt64)] = []
        var next = Clock.now()
        for tool in order {
            Clock.sleep(until: next)
            let start = Clock.now()
            next = start + UInt64(spacing * 1e9)
            switch tool {
            case .cli:
                let pid = try Children.spawn(c.sysound, ["play", "tap", "--state-dir", daemon.stateDirectory])
                launches.append((tool, start))
                Children.wait(pid)
            case .pactl:
                let pid = try Children.spawn("/usr/bin/pactl", ["play-sample", CLIProcessFigure.sampleName])
                launches.append((tool, start))
                Children.wait(pid)
            case .library:
                _ = try library.play("tap")
                launches.append((tool, start))
            case .libraryAfterPause:
                _ = try pausing.play("tap")
                launches.append((tool, start))
            }
        }
        Clock.sleep(seconds: 0.5)
        let (reads, levels) = recorder.snapshot()
        analyze(c, launches, reads: reads, levels: levels, clipOnset: clipOnset, clipFrames: clipFrames)
    }

    static func analyze(_ c: BenchContext, _ launches: [(Tool, UInt64)], reads: [MonitorRecorder.Read], levels: [Int16],
                        clipOnset: Int, clipFrames: Int) {
        let rate = MonitorRecorder.rate
        let level = Int16(threshold * 32768)
        let window: UInt64 = 150_000_000
        var latencies = [[Double]](repeating: [], count: Tool.allCases.count)
        var missed = 0, overlapping = 0, early = 0
        var blocks: [Double] = [], drift = [[Double]](repeating: [], count: Tool.allCases.count)
        for i in 1..<reads.count { blocks.append(Double(reads[i].frames - reads[i - 1].frames) / rate * 1000) }
        for (tool, t0) in launches {
            // S: the lowest arrival − k/48000 in the 150 ms after the launch, where the
            // onset lies. Kept local because the frame count runs ahead of the clock
            // by the frames PulseAudio rewinds and the monitor delivers again (up to
            // ~2 ms/s with several streams open); the 150 ms before give the error bar.
            var before = Double.infinity, after = Double.infinity
            for r in reads where r.time + window >= t0 && r.time <= t0 + window {
                let s = Double(r.time) - Double(r.frames) / rate * 1e9
                if r.time < t0 { before = min(before, s) } else { after = min(after, s) }
            }
            let s = after
            guard s.isFinite else { missed += 1; continue }
            if before.isFinite && after.isFinite { drift[tool.rawValue].append((before - after) / 1e6) }
            let k0 = Int(((Double(t0) - s) / 1e9 * rate).rounded())
            let quiet = max(0, k0 - Int(0.1 * rate))
            let end = min(levels.count, k0 + Int(0.3 * rate))
            guard k0 > 0, end > k0 else { missed += 1; continue }
            if levels[quiet..<k0].contains(where: { $0 > level }) { overlapping += 1; continue }
            guard let onset = (k0..<end).first(where: { levels[$0] > level }) else { missed += 1; continue }
            // Another tone after this one ends, before the next launch: a duplicate or a late one.
            let tail = onset + clipFrames + Int(0.02 * rate)
            if tail < end, levels[tail..<end].contains(where: { $0 > level }) { overlapping += 1 }
            let ms = Double(onset - clipOnset - k0) / rate * 1000
            if ms < 0 { early += 1 }
            latencies[tool.rawValue].append(ms)
        }
        for tool in Tool.allCases { c.report.add("2", tool.label, unit: "ms", latencies[tool.rawValue]) }
        let medians = Tool.allCases.map { Summary(latencies[$0.rawValue])?.median ?? .nan }
        c.report.add("2", "ratio CLI / pactl (medians)", unit: "×", value: medians[Tool.cli.rawValue] / medians[Tool.pactl.rawValue])
        c.report.add("2", "error bar: monitor block per read", unit: "ms", blocks,
                     note: "frames arrive in blocks this long; the sink time of a frame is known to about one block")
        for tool in Tool.allCases {
            c.report.add("2", "sink clock: S before − S after, \(tool.label.dropFirst("launch → sink: ".count))", unit: "ms", drift[tool.rawValue],
                         note: tool == .cli ? "S from the 150 ms before vs after each launch: the error of the sink-clock estimate; positive = the frame count ran ahead (rewound frames delivered again)" : nil)
        }
        if missed + overlapping + early > 0 {
            c.report.problems.append("figure 2: \(missed) tones missed, \(overlapping) overlapping or duplicated, \(early) onsets before their launch (of \(launches.count))")
        }
        c.report.notes.append("figure 2: the library plays twice: with idle_pause_ms = 0 (device always running) and with \(shortIdlePauseMs) ms (each play, ≥ \(spacing) s after the last, resumes a paused device); the CLI's daemon runs the shipped config, so some of its plays resume a paused device")
        c.report.notes.append("figure 2: onset = first frame above −24 dBFS minus the clip's own \(clipOnset) frames before it crosses; \(launches.count) launches, \(missed) missed, \(overlapping) overlapping")
    }
}
