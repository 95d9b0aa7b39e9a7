import Glibc
import Sysound
import SysoundAudio

/// Figure 2: launch → the clip's first sample at the sink, for the CLI
/// (daemon up), the library's `play()` in-process (embedded engine, device
/// open and clip loaded before timing; once with the device running, once
/// paused for idleness so every play resumes it), `pactl play-sample`, and the
/// meter's own reference tone, whose latency is known to be tiny and so
/// checks the method in every run (SinkOnsetMeter, SinkOnsets). Every tool
/// plays the same clip; tools in shuffled order, ≥ 350 ms apart.
enum OnsetFigure {
    enum Tool: Int, CaseIterable {
        case cli, library, libraryAfterPause, pactl, reference
        var label: String {
            switch self {
            case .cli: "launch → sink: sysound play tap (daemon up)"
            case .library: "launch → sink: library play() in-process"
            case .libraryAfterPause: "launch → sink: library play() in-process, first after an idle pause"
            case .pactl: "launch → sink: pactl play-sample"
            case .reference: "reference: write → sink on the bench's own stream"
            }
        }
    }

    static let spacing = 0.35
    /// The paused library's idle time: well inside `spacing` after the tap ends,
    /// so each of its plays finds the device paused.
    static let shortIdlePauseMs = 100
    /// What the reference must read for the run to count (ms): a full run, and
    /// the looser bound of the smoke run in CI.
    static let referenceValid = 0.05...0.3
    static let referenceSmoke = 0.0...0.4

    static func run(_ c: BenchContext) throws {
        guard let daemon = c.daemon else { throw BenchError("no daemon") }
        try CLIProcessFigure.uploadSample(c)
        let clip = try monoClip(c.tapPath)
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

        let meter = try SinkOnsetMeter(sink: c.sink, referenceClip: clip)
        defer { meter.stop() }
        Clock.sleep(seconds: 0.5)
        guard meter.frameCount > 0 else { throw BenchError("the record stream on \(c.sink).monitor delivered nothing in 0.5 s") }
        let server = PulseServerInfo.describe(sink: c.sink)

        let perTool = c.count(80, smoke: 4)
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
            case .reference:
                launches.append((tool, meter.playReference()))
            }
        }
        Clock.sleep(seconds: 0.5)
        meter.stop()
        if let failure = meter.failure { throw BenchError("the onset meter stopped: \(failure)") }
        let onsets = try SinkOnsets(meter.snapshot(), clip: clip)
        c.report.notes += server.map { "figure 2: \($0)" }
        try analyze(c, launches, onsets)
    }

    /// The clip as the sink gets it from every tool: mono float, ±1.
    static func monoClip(_ path: String) throws -> [Float] {
        let decoded = try SoundDecoder().decode(path: path)
        let ch = max(decoded.channels, 1)
        return stride(from: 0, to: decoded.samples.count - ch + 1, by: ch).map { i in
            decoded.samples[i..<(i + ch)].reduce(0, +) / Float(ch)
        }
    }

    static func analyze(_ c: BenchContext, _ launches: [(Tool, UInt64)], _ onsets: SinkOnsets) throws {
        var latencies = [[Double]](repeating: [], count: Tool.allCases.count)
        var found: [SinkOnsets.Onset] = []
        var misses: [String: Int] = [:]
        var broken = [Int](repeating: 0, count: Tool.allCases.count)
        for (tool, t0) in launches {
            switch onsets.onset(after: t0) {
            case .success(let o):
                latencies[tool.rawValue].append(o.latency)
                found.append(o)
                if !o.isWhole { broken[tool.rawValue] += 1 }
            case .failure(let miss):
                misses["\(tool) \(miss)", default: 0] += 1
            }
        }
        for tool in Tool.allCases { c.report.addWithCI("2", tool.label, unit: "ms", latencies[tool.rawValue]) }
        func median(_ t: Tool) -> Double { Summary(latencies[t.rawValue])?.median ?? .nan }
        let cli = latencies[Tool.cli.rawValue], pactl = latencies[Tool.pactl.rawValue]
        c.report.add("2", "ratio CLI / pactl (medians)", unit: "×", value: median(.cli) / median(.pactl),
                     ci95: Bootstrap.ratioCI(cli, pactl))
        c.report.add("2", "first after an idle pause − warm (library, medians)", unit: "ms",
                     value: median(.libraryAfterPause) - median(.library),
                     ci95: Bootstrap.differenceCI(latencies[Tool.libraryAfterPause.rawValue], latencies[Tool.library.rawValue]))
        let rec = onsets.recording
        c.report.add("2", "method: timing replies per line fit (±50 ms)", unit: "replies", found.map { Double($0.replies) })
        c.report.add("2", "method: replies left out of the line", unit: "replies", found.map { Double($0.dropped) },
                     note: "further than 3 × the median distance (≥ 20 µs) from a first fit: late replies of a preempted server thread")
        c.report.add("2", "method: worst reply off its line", unit: "ms", found.map(\.lineError),
                     note: "how far one timing reply sits from the straight line through its neighbours: the mapping's noise")
        c.report.add("2", "method: recorded frames per sink second", unit: "frames/s", found.map(\.framesPerSecond),
                     note: "the line's slope: above 48000 when the monitor's frame count runs ahead of the sink's clock")
        c.report.add("2", "method: clip fit residual", unit: "share", found.map(\.residual),
                     note: "energy the fitted clip (free gain) leaves unexplained over its first 10 ms and the 0.5 ms before")
        c.report.add("2", "method: fitted clip gain", unit: "×", found.map(\.gain))
        for tool in Tool.allCases {
            c.report.add("2", "clips not whole at the sink: \(tool.label.split(separator: ":").last!.dropFirst())", unit: "clips",
                         value: Double(broken[tool.rawValue]),
                         note: tool == .cli ? "the fitted clip leaves > 5 % of the recorded energy over its whole length: a gap (underrun) or another sound" : nil)
        }
        let drift = (rec.realtimeOffsets.end - rec.realtimeOffsets.start) / 1e6
        c.report.notes.append(String(format: "figure 2: %d timing replies (%d dropped: clocks not synchronized); client and server frame counts differed by at most %.0f frames; CLOCK_REALTIME − CLOCK_MONOTONIC moved %.3f ms during the run",
                                     rec.replies.count, rec.unsynchronized, rec.indexMismatch, drift))
        c.report.notes.append("figure 2: the library plays twice: with idle_pause_ms = 0 (device always running) and with \(shortIdlePauseMs) ms (each play, ≥ \(spacing) s after the last, resumes a paused device); the CLI's daemon runs the shipped config, so its plays resume a paused device")
        c.report.notes.append("figure 2: \(launches.count) launches, \(launches.count - found.count) not measured" +
                              (misses.isEmpty ? "" : ": " + misses.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")))
        if !misses.isEmpty {
            c.report.problems.append("figure 2: \(launches.count - found.count) of \(launches.count) onsets not measured (see the notes)")
        }
        // The reference decides whether the run counts.
        let bounds = c.smoke ? referenceSmoke : referenceValid
        let reference = Summary(latencies[Tool.reference.rawValue])?.median
        guard let reference, bounds.contains(reference) else {
            let read = reference.map { fmt($0) + " ms" } ?? "nothing"
            throw BenchError("figure 2 INVALID: the reference tone read \(read) (median), outside \(bounds.lowerBound)–\(bounds.upperBound) ms: the frame → sink-clock mapping is wrong, so no onset of this run counts")
        }
    }
}
