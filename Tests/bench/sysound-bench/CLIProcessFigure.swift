import Glibc

/// Figure 1: whole-process time (spawn → reaped) of `sysound play tap` with
/// the daemon up, interleaved in shuffled order with `true` and with
/// `pactl play-sample` of the same clip uploaded to the same PulseAudio server.
/// The same request with `--verbose` shows what every other command costs:
/// `sysound` hands it to the full CLI (`sysound-cli`, swift-argument-parser)
/// with execv.
enum CLIProcessFigure {
    static let sampleName = "sysound-bench-tap"

    static func run(_ c: BenchContext) throws {
        guard let daemon = c.daemon else { throw BenchError("no daemon") }
        try uploadSample(c)
        let tools: [(name: String, path: String, args: [String])] = [
            ("true", "/bin/true", []),
            ("sysound play tap (daemon up)", c.sysound, ["play", "tap", "--state-dir", daemon.stateDirectory]),
            ("pactl play-sample", "/usr/bin/pactl", ["play-sample", sampleName]),
            ("sysound play tap --verbose (daemon up; exec of sysound-cli)", c.sysound,
             ["play", "tap", "--verbose", "--state-dir", daemon.stateDirectory]),
        ]
        let warmup = c.count(5, smoke: 1), runs = c.count(60, smoke: 5)
        var times = [[Double]](repeating: [], count: tools.count)
        for round in 0..<(warmup + runs) {
            for i in tools.indices.shuffled() {
                let tool = tools[i]
                let start = Clock.now()
                let pid = try Children.spawn(tool.path, tool.args)
                let status = Children.wait(pid)
                let ms = Double(Clock.now() - start) / 1e6
                guard exitCode(status) == 0 else {
                    throw BenchError("\(tool.name) exited with \(exitCode(status)) (\(tool.path) \(tool.args.joined(separator: " ")))")
                }
                if round >= warmup { times[i].append(ms) }
            }
        }
        for i in tools.indices { c.report.add("1", "process: " + tools[i].name, unit: "ms", times[i]) }
        let ratio = Summary(times[1])!.median / Summary(times[2])!.median
        c.report.add("1", "ratio sysound / pactl (medians)", unit: "×", value: ratio)
    }

    /// `pactl upload-sample` of the theme's tap into the fixture's server (once).
    static func uploadSample(_ c: BenchContext) throws {
        let (status, output) = try runCapturing("/usr/bin/pactl", ["upload-sample", c.tapPath, sampleName])
        guard exitCode(status) == 0 else { throw BenchError("pactl upload-sample \(c.tapPath) failed: \(output)") }
    }
}
