import Foundation
import Glibc

/// Figure 11: the levers on launch → sink (docs/latency.md), each a `sysound serve`
/// of its own measured alone with the validated onset method (OnsetRun):
/// `sysound play tap` against it, `pactl play-sample` and the reference,
/// shuffled. Once on the machine as it is, once with both cores loaded by two
/// busy processes: a lever that underruns shows there as clips that do not
/// arrive whole.
///
/// A lever's OpenAL Soft settings go in an ALSOFT_CONF file the bench writes
/// for that daemon (the engine leaves a user's ALSOFT_CONF alone, so it
/// writes no period of its own then); the shipped row has none.
enum LeverFigure {
    struct Lever {
        var label: String
        var period = 128, periods = 2
        var rtPrio: Int?
        var fixRate = false
        /// The shipped idle pause (the device is paused between plays)
        /// instead of a device kept running.
        var idlePause = false
        /// No ALSOFT_CONF: exactly what ships.
        var shipped = false
        /// Every thread of the daemon SCHED_RR 1 (`chrt -a`), OpenAL Soft's
        /// mixer and libpulse's mainloop thread included; threads started
        /// later inherit it.
        var wholeDaemonRealtime = false
        /// `[audio] realtime_priority` for the daemon; nil keeps the shipped
        /// one (4: its audio threads real-time, directly as root, as here).
        var realtimePriority: Int?
        /// `[audio] output` of the daemon: "pulse" is sysound's own stream
        /// (written only while a sound plays), nil the shipped choice.
        var output: String?
    }

    static let levers = [
        Lever(label: "96 × 4 (shipped period), device running", period: 96, periods: 4, shipped: true),
        Lever(label: "96 × 4, shipped idle pause (resumed by the play)", period: 96, periods: 4, idlePause: true, shipped: true),
        Lever(label: "64 × 2", period: 64),
        Lever(label: "64 × 3", period: 64, periods: 3),
        Lever(label: "128 × 2, rt-prio 1", rtPrio: 1),
        Lever(label: "64 × 2, rt-prio 1", period: 64, rtPrio: 1),
        Lever(label: "128 × 2, fix-rate", fixRate: true),
        Lever(label: "128 × 3", periods: 3),
        Lever(label: "64 × 4", period: 64, periods: 4),
        Lever(label: "256 × 2", period: 256),
        Lever(label: "128 × 2, every daemon thread SCHED_RR", wholeDaemonRealtime: true),
        Lever(label: "64 × 2, every daemon thread SCHED_RR", period: 64, wholeDaemonRealtime: true),
        Lever(label: "128 × 3, rt-prio 1", periods: 3, rtPrio: 1),
        Lever(label: "96 × 3", period: 96, periods: 3),
        Lever(label: "64 × 3, rt-prio 1", period: 64, periods: 3, rtPrio: 1),
        Lever(label: "128 × 4", periods: 4),
        Lever(label: "128 × 2 (shipped before 96 × 4)"),
        Lever(label: "128 × 3, every daemon thread SCHED_RR", periods: 3, wholeDaemonRealtime: true),
        Lever(label: "96 × 3, every daemon thread SCHED_RR", period: 96, periods: 3, wholeDaemonRealtime: true),
        Lever(label: "96 × 4, every daemon thread SCHED_RR", period: 96, periods: 4, wholeDaemonRealtime: true),
        Lever(label: "own PulseAudio stream (output = pulse), 96 × 4, never corked", period: 96, periods: 4, shipped: true, output: "pulse"),
        Lever(label: "own PulseAudio stream (output = pulse), 96 × 4, shipped idle pause (corked)", period: 96, periods: 4, idlePause: true, shipped: true, output: "pulse"),
        Lever(label: "OpenAL Soft's device (output = openal), 96 × 4, device running", period: 96, periods: 4, shipped: true, output: "openal"),
        Lever(label: "96 × 4, realtime_priority = 0 (audio threads at normal priority), device running",
              period: 96, periods: 4, shipped: true, realtimePriority: 0),
    ]

    static func run(_ c: BenchContext) throws {
        try CLIProcessFigure.uploadSample(c)
        let clip = try OnsetFigure.monoClip(c.tapPath)
        let pactl = OnsetRun.Tool(label: "pactl play-sample") {
            let start = Clock.now()
            Children.wait(try Children.spawn("/usr/bin/pactl", ["play-sample", CLIProcessFigure.sampleName]))
            return start
        }
        // The smoke run keeps the shipped period's row only (figure 2 plays after an idle pause).
        let chosen = c.levers.map { $0.map { levers[$0] } } ?? (c.smoke ? Array(levers.prefix(1)) : levers)
        var invalid: [String] = []
        for loaded in c.leversLoadedOnly ? [true] : [false, true] {
            let condition = loaded ? " (both cores loaded)" : ""
            for (i, lever) in chosen.enumerated() {
                let run = try measure(c, lever, index: i, loaded: loaded, pactl: pactl, clip: clip)
                let label = lever.label + condition
                c.report.addWithCI("11", "CLI launch → sink: " + label, unit: "ms", run.latencies[0])
                c.report.add("11", "ratio CLI / pactl: " + label, unit: "×", value: run.median(0) / run.median(1),
                             ci95: Bootstrap.ratioCI(run.latencies[0], run.latencies[1]))
                c.report.add("11", "clips not whole at the sink: " + label, unit: "clips", value: Double(run.broken[0]))
                let missed = run.misses.map { "\($0.value) × \($0.key)" }.sorted().joined(separator: ", ")
                let bounds = run.referenceBounds(c)
                c.report.notes.append(String(format: "figure 11, %@: pactl %@ ms, reference %@ ms (medians; valid %@–%@), pactl clips not whole %d, load average %@%@",
                                             label, fmt(run.median(1)), fmt(run.median(2)), fmt(bounds.lowerBound), fmt(bounds.upperBound), run.broken[1], run.load,
                                             missed.isEmpty ? "" : "; not measured: " + missed))
                do { try run.validate(c, figure: "11, " + label) } catch { invalid.append("\(error)") }
            }
        }
        c.report.notes.append("figure 11: one daemon per lever (idle_pause_ms = 0 unless the row says otherwise), measured alone with pactl and the reference interleaved; rt-prio takes effect only where the process may set SCHED_RR (here: root); the shipped realtime_priority = 4 makes the daemon's audio threads SCHED_FIFO 4 directly (root)")
        if !invalid.isEmpty { throw BenchError(invalid.joined(separator: "; ")) }
    }

    /// One lever: its own daemon, `sysound play tap` against it, pactl and the
    /// reference, shuffled; with two busy processes running if `loaded`.
    static func measure(_ c: BenchContext, _ lever: Lever, index: Int, loaded: Bool, pactl: OnsetRun.Tool, clip: [Float]) throws -> OnsetRun {
        var config = try c.writeConfig(name: "lever-\(index)", periodFrames: lever.period, output: lever.output)
        if !lever.idlePause { config = try IdleFigure.setIdlePause(0, in: config) }
        if let p = lever.realtimePriority { config = try c.setConfigLine("realtime_priority = ", to: "\(p)", in: config) }
        var env: [String: String] = [:]
        if !lever.shipped { env["ALSOFT_CONF"] = try alsoftConf(c, lever, index: index) }
        let name = "lever-\(index)-\(loaded ? "loaded" : "idle")"
        let daemon = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: name, environment: env)
        defer { daemon.stop() }
        if lever.wholeDaemonRealtime {
            try chrt(["-a", "-r", "-p", "1", "\(daemon.pid)"])
        }
        let play = ["play", "tap", "--state-dir", daemon.stateDirectory]
        // The daemon opens its device and loads the clip before timing.
        Children.wait(try Children.spawn(c.sysound, play))
        let cli = OnsetRun.Tool(label: "sysound play tap") {
            let start = Clock.now()
            Children.wait(try Children.spawn(c.sysound, play))
            return start
        }
        let busy = loaded ? try (0..<2).map { _ in try Children.spawn("/bin/sh", ["-c", "while :; do :; done"]) } : []
        defer { busy.forEach { Children.stop($0) } }
        var run = try OnsetRun.measure(c, [cli, pactl], perTool: c.count(24, smoke: 3), clip: clip)
        run.load = SysoundBench.loadAverage()
        return run
    }

    static func chrt(_ args: [String]) throws {
        let (status, output) = try runCapturing("/usr/bin/chrt", args)
        guard exitCode(status) == 0 else { throw BenchError("chrt \(args.joined(separator: " ")) failed: \(output)") }
    }

    /// An OpenAL Soft config for one lever, in the bench's temp directory.
    static func alsoftConf(_ c: BenchContext, _ lever: Lever, index: Int) throws -> String {
        // frequency as the engine writes it: period_size counts frames at
        // 44100 otherwise, and 128 would become 140 at 48 kHz.
        var text = "[general]\nfrequency = 48000\nperiod_size = \(lever.period)\nperiods = \(lever.periods)\n"
        if let rt = lever.rtPrio { text += "rt-prio = \(rt)\n" }
        if lever.fixRate { text += "[pulse]\nfix-rate = true\n" }
        let path = c.work + "/alsoft-lever-\(index).conf"
        guard let f = fopen(path, "w") else { throw BenchError("cannot write \(path): errno \(errno)") }
        fputs(text, f)
        fclose(f)
        return path
    }
}
