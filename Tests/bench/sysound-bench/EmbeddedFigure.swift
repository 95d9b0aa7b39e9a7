import Foundation
import Glibc

/// Figure 18: `sysound play tap` with no daemon, as a newcomer or a script
/// runs it (the embedded engine in a one-shot process): launch → the clip's
/// first sample at the sink beside `paplay` and `pactl play-sample` of the
/// same clip, validated by the reference tone as figure 2 is (OnsetRun);
/// then the whole process (spawn → reaped; the embedded engine waits for
/// the sound's end, as it must) beside `paplay`'s, against the clip's
/// length. The user's configuration is found as a user's is
/// (`$XDG_CONFIG_HOME/sysound/sysound.toml`): the command line is the
/// user's own, nothing added. The state directory has no daemon's socket.
enum EmbeddedFigure {
    enum Tool: Int, CaseIterable {
        case embedded, pactl, paplay
        var label: String {
            switch self {
            case .embedded: "launch → sink: sysound play tap (no daemon: embedded engine)"
            case .pactl: "launch → sink: pactl play-sample"
            case .paplay: "launch → sink: paplay tap.wav (a new stream)"
            }
        }
    }

    static let overClip = "process: embedded − the clip's length (medians)"

    static func run(_ c: BenchContext) throws {
        try CLIProcessFigure.uploadSample(c)
        let environment = try userEnvironment(c)
        let state = c.work + "/state-embedded"
        mkdir(state, 0o700)
        let embedded = { () throws -> pid_t in
            try Children.spawn(c.sysound, ["play", "tap", "--state-dir", state], environment: environment)
        }
        // A first run outside the timing: the page cache holds the binaries and the theme, as after any earlier use.
        guard exitCode(Children.wait(try embedded())) == 0 else {
            throw BenchError("sysound play tap without a daemon failed; run it by hand: XDG_CONFIG_HOME=\(environment["XDG_CONFIG_HOME"]!) \(c.sysound) play tap --state-dir \(state)")
        }
        let clip = try OnsetFigure.monoClip(c.tapPath)
        let tools = Tool.allCases.map { tool in
            OnsetRun.Tool(label: tool.label) {
                let start = Clock.now()
                switch tool {
                // Reaped before the next launch (≥ 350 ms apart): the tap lasts 36 ms.
                case .embedded: Children.wait(try embedded())
                case .pactl: Children.wait(try Children.spawn("/usr/bin/pactl", ["play-sample", CLIProcessFigure.sampleName]))
                case .paplay: Children.wait(try Children.spawn("/usr/bin/paplay", [c.tapPath]))
                }
                return start
            }
        }
        let run = try OnsetRun.measure(c, tools, perTool: c.count(40, smoke: 4), clip: clip)
        let onsetLatencies = run.latencies
        defer {
            c.report.add("18", "ratio embedded / paplay (launch → sink, medians)", unit: "×",
                         value: run.median(Tool.embedded.rawValue) / run.median(Tool.paplay.rawValue),
                         ci95: Bootstrap.ratioCI(onsetLatencies[Tool.embedded.rawValue], onsetLatencies[Tool.paplay.rawValue]))
        }
        try wholeProcess(c, embedded: embedded, clip: clip)
        try run.report(c, figure: "18")
    }

    /// Spawn → reaped, interleaved in shuffled order; and the clip's length the process must wait for.
    static func wholeProcess(_ c: BenchContext, embedded: @escaping () throws -> pid_t, clip: [Float]) throws {
        let tools: [(name: String, spawn: () throws -> pid_t)] = [
            ("sysound play tap (no daemon: embedded engine)", embedded),
            ("paplay tap.wav", { try Children.spawn("/usr/bin/paplay", [c.tapPath]) }),
        ]
        let runs = c.count(30, smoke: 3)
        var times = [[Double]](repeating: [], count: tools.count)
        for _ in 0..<runs {
            for i in tools.indices.shuffled() {
                let start = Clock.now()
                let status = Children.wait(try tools[i].spawn())
                guard exitCode(status) == 0 else { throw BenchError("\(tools[i].name) exited with \(exitCode(status))") }
                times[i].append(Double(Clock.now() - start) / 1e6)
                Clock.sleep(seconds: 0.1)
            }
        }
        let clipMs = Double(clip.count) / Double(SinkOnsetMeter.rate) * 1000
        for i in tools.indices { c.report.add("18", "process: " + tools[i].name, unit: "ms", times[i]) }
        c.report.add("18", overClip, unit: "ms", value: Summary(times[0])!.median - clipMs,
                     note: "the tap lasts \(fmt(clipMs)) ms; the embedded engine returns when it has played out")
    }

    /// This process's environment with `XDG_CONFIG_HOME` holding the bench's
    /// configuration as the user's own `sysound/sysound.toml`.
    static func userEnvironment(_ c: BenchContext) throws -> [String: String] {
        let home = c.work + "/xdg-config-embedded"
        mkdir(home, 0o755)
        mkdir(home + "/sysound", 0o755)
        let config = try c.writeConfig(name: "embedded")
        guard let text = readTextFile(config) else { throw BenchError("cannot read \(config)") }
        try text.write(toFile: home + "/sysound/sysound.toml", atomically: false, encoding: .utf8)
        var environment = currentEnvironment().filter { $0.key != "PULSE_PROP" }
        environment["XDG_CONFIG_HOME"] = home
        return environment
    }
}
