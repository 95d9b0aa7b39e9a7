import Glibc
import Sysound
import SysoundAudio

/// Figure 2: launch → the clip's first sample at the sink, for the CLI
/// (daemon up), the library's `play()` in-process (embedded engine, device
/// open and clip loaded before timing; once with the device running, once
/// paused for idleness so every play resumes it), `pactl play-sample`,
/// `paplay` of the same file (a new stream per sound), and the
/// meter's own reference tone, whose latency is known to be tiny and so
/// checks the method in every run (OnsetRun). Every tool plays the same clip.
enum OnsetFigure {
    enum Tool: Int, CaseIterable {
        case cli, library, libraryAfterPause, pactl, paplay
        var label: String {
            switch self {
            case .cli: "launch → sink: sysound play tap (daemon up)"
            case .library: "launch → sink: library play() in-process"
            case .libraryAfterPause: "launch → sink: library play() in-process, first after an idle pause"
            case .pactl: "launch → sink: pactl play-sample"
            case .paplay: "launch → sink: paplay tap.wav (a new stream)"
            }
        }
    }

    /// The paused library's idle time: well inside the spacing after the tap
    /// ends, so each of its plays finds the device paused.
    static let shortIdlePauseMs = 100

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

        let tools = Tool.allCases.map { tool in
            OnsetRun.Tool(label: tool.label) {
                let start = Clock.now()
                switch tool {
                case .cli: Children.wait(try Children.spawn(c.sysound, ["play", "tap", "--state-dir", daemon.stateDirectory]))
                case .pactl: Children.wait(try Children.spawn("/usr/bin/pactl", ["play-sample", CLIProcessFigure.sampleName]))
                // What any PulseAudio client pays for a sound: a process, a new stream, the file decoded.
                case .paplay: Children.wait(try Children.spawn("/usr/bin/paplay", [c.tapPath]))
                case .library: _ = try library.play("tap")
                case .libraryAfterPause: _ = try pausing.play("tap")
                }
                return start
            }
        }
        let run = try OnsetRun.measure(c, tools, perTool: c.count(80, smoke: 4), clip: clip)
        let cli = run.latencies[Tool.cli.rawValue], pactl = run.latencies[Tool.pactl.rawValue]
        c.report.notes.append("figure 2: the library plays twice: with idle_pause_ms = 0 (device always running) and with \(shortIdlePauseMs) ms (each play, ≥ \(OnsetRun.spacing) s after the last, resumes a paused device); the CLI's daemon runs the shipped config, so most of its plays resume a paused device")
        defer {
            c.report.add("2", "ratio CLI / pactl (medians)", unit: "×", value: run.median(Tool.cli.rawValue) / run.median(Tool.pactl.rawValue),
                         ci95: Bootstrap.ratioCI(cli, pactl))
            c.report.add("2", "first after an idle pause − warm (library, medians)", unit: "ms",
                         value: run.median(Tool.libraryAfterPause.rawValue) - run.median(Tool.library.rawValue),
                         ci95: Bootstrap.differenceCI(run.latencies[Tool.libraryAfterPause.rawValue], run.latencies[Tool.library.rawValue]))
        }
        try run.report(c, figure: "2")
    }

    /// The clip as the sink gets it from every tool: mono float, ±1.
    static func monoClip(_ path: String) throws -> [Float] {
        let decoded = try SoundDecoder().decode(path: path)
        let ch = max(decoded.channels, 1)
        return stride(from: 0, to: decoded.samples.count - ch + 1, by: ch).map { i in
            decoded.samples[i..<(i + ch)].reduce(0, +) / Float(ch)
        }
    }
}
