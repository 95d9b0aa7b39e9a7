import ArgumentParser
import CBenchMalloc
import Foundation
import Glibc
import SysoundCore

@main
struct SysoundBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sysound-bench",
        abstract: "Measure sysound's latency, throughput and cost beside PulseAudio's sample cache (docs/bench-method.md).",
        discussion: """
            Starts its own fixtures: a private PulseAudio server or PipeWire with a null sink (--server; \
            re-running itself under Tests/fixture/with-pulse.sh or with-pipewire.sh), `sysound serve` \
            daemons in temp state directories, a \
            fake haptic device. Prints a table (median, p90, p99, min, max, n) and writes it as JSON. \
            Everything it starts is stopped by PID at the end, also on failure or Ctrl-C. Needs the \
            release `sysound` binary next to this one: Tests/bench/run.sh builds both.
            """)

    /// The figures there are (each `figure(n, …)` below), all run unless --figures picks some.
    static let figureNumbers = 1...19

    @Flag(help: "A few iterations of every figure, no targets judged (under 2 minutes): for CI.")
    var smoke = false

    @Option(help: ArgumentHelp("Where to write the results as JSON (default: sysound-bench.json next to this binary).", valueName: "path"))
    var json: String?

    @Option(help: ArgumentHelp("The sysound binary to measure (default: the one next to this binary).", valueName: "path"))
    var sysound: String?

    @Option(help: ArgumentHelp("The sysound source tree (config/, Sounds/, Tests/fixture/).", valueName: "dir"))
    var packageRoot: String?

    @Option(help: ArgumentHelp("Only these figures, comma-separated (e.g. 1,5; 11 is the latency levers, 12 the sound–haptic skew, 13 gsettings → policy, 14 a tap during a big reload, 15 the cost at rest, 16 identity lookup, beside 9's D-Bus latency, 17 a media role closed after its quiet time, 18 play without a daemon, 19 the first sound of a session).", valueName: "list"))
    var figures: String?

    @Option(help: ArgumentHelp("The sound server to run on: pulseaudio or pipewire (Tests/bench/run.sh runs both).", valueName: "name"))
    var server: SoundServer = .pulseaudio

    @Option(help: ArgumentHelp("Figure 11: only these levers (0-based indices, comma-separated).", valueName: "list"))
    var levers: String?

    @Flag(help: "Figure 11: only the run with both cores loaded.")
    var leversLoadedOnly = false

    @Option(help: ArgumentHelp("[audio] output for the daemons and embedded engines: auto, pulse or openal (default: the shipped config's).", valueName: "name"))
    var output: String?

    func validate() throws {
        if let output, AudioBackend(rawValue: output) == nil {
            throw ValidationError("--output \(output): expected \(AudioBackend.names)")
        }
        if let levers, levers.split(separator: ",").contains(where: { Int($0).map { !LeverFigure.levers.indices.contains($0) } ?? true }) {
            throw ValidationError("--levers \(levers): give lever indices 0–\(LeverFigure.levers.count - 1) separated by commas")
        }
        if let figures, figures.split(separator: ",").contains(where: { Int($0).map { !Self.figureNumbers.contains($0) } ?? true }) {
            throw ValidationError("--figures \(figures): give numbers \(Self.figureNumbers.lowerBound)–\(Self.figureNumbers.upperBound) separated by commas, e.g. --figures 1,5")
        }
    }

    func run() throws {
        let root = packageRoot ?? Self.defaultRoot()
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let env = currentEnvironment()
        if env["SYSOUND_FIXTURE_DIR"] == nil || env["PULSE_SERVER"] == nil {
            try Self.reexecUnderFixture(server, root: root, exe: exe)
        }
        guard SoundServer.ofFixture ?? .pulseaudio == server else {
            throw BenchError("--server \(server.rawValue), but this runs under the \(SoundServer.ofFixture!.rawValue) fixture (SYSOUND_SOUND_SERVER); run it outside a fixture and the bench starts the right one")
        }
        Children.handleSignals()
        let binary = sysound ?? (exe as NSString).deletingLastPathComponent + "/sysound"
        guard access(binary, X_OK) == 0 else {
            throw BenchError("no sysound binary at \(binary); build it with `swift build -c release --static-swift-stdlib --product sysound` (Tests/bench/run.sh does) or pass --sysound PATH")
        }
        guard bench_malloc_interposed() != 0 else {
            throw BenchError("the counting allocator is not in use (malloc was not interposed); allocation counts would be wrong")
        }
        let wanted = figures.map { Set($0.split(separator: ",").compactMap { Int($0) }) } ?? Set(Self.figureNumbers)
        let report = Report(date: Self.today(), machine: Self.machine(), mode: smoke ? "smoke" : "full", server: Self.serverVersion(server))
        let context = try BenchContext(smoke: smoke, root: root, sysound: binary, sink: env["SYSOUND_SINK"] ?? "sysound_test",
                                       server: server, report: report)
        context.levers = levers.map { $0.split(separator: ",").compactMap { Int($0) } }
        context.leversLoadedOnly = leversLoadedOnly
        context.output = output
        let started = Clock.now()
        let loadStart = Self.loadAverage()
        var failed = false
        defer {
            Children.stopAll()
            context.removeWork()
        }
        func figure(_ n: Int, _ body: (BenchContext) throws -> Void) {
            guard wanted.contains(n) else { return }
            printErr("sysound-bench: figure \(n)…")
            do { try body(context) } catch {
                context.report.problems.append("figure \(n) failed: \(error)")
                failed = true
            }
        }
        do {
            let config = try context.writeConfig(name: "default")
            if !wanted.isDisjoint(with: [1, 2, 5, 6]) {
                context.daemon = try BenchDaemon(binary: binary, config: config, workDirectory: context.work, name: "main")
            }
        } catch {
            context.report.problems.append("cannot start the daemon: \(error)")
            failed = true
        }
        if context.daemon != nil || wanted.isDisjoint(with: [1, 2, 5, 6]) {
            figure(1, CLIProcessFigure.run)
            figure(2, OnsetFigure.run)
        }
        figure(3, PlayCostFigure.run)
        figure(4, HapticsFigure.run)
        if context.daemon != nil {
            figure(5, ThroughputFigure.run)
            figure(6, SilentToggleFigure.run)
        }
        context.daemon?.stop()
        context.daemon = nil
        figure(7, StartupFigure.run)
        figure(8, IdleFigure.run)
        figure(9, DBusFigure.run)
        figure(16, IdentityFigure.run)
        figure(10, LockedHintFigure.run)
        figure(11, LeverFigure.run)
        figure(12, SkewFigure.run)
        figure(13, DesktopSettingFigure.run)
        figure(14, ReloadFigure.run)
        figure(15, RestFigure.run)
        figure(17, RoleReleaseFigure.run)
        figure(18, EmbeddedFigure.run)
        figure(19, SessionStartFigure.run)
        context.report.notes.append("load average (1, 5, 15 min) at the start: \(loadStart); at the end: \(Self.loadAverage()) — the 2 cores may be shared")
        Targets.judge(&context.report)
        context.report.seconds = Clock.seconds(since: started)
        print(context.report.table)
        let jsonPath = json ?? (exe as NSString).deletingLastPathComponent + "/sysound-bench.json"
        do {
            try context.report.writeJSON(to: jsonPath)
            print("results: \(jsonPath)")
        } catch {
            printErr("sysound-bench: cannot write \(jsonPath): \(error)")
            failed = true
        }
        if failed { throw ExitCode(1) }
    }

    /// The source tree: the working directory if it is one, else where this file was compiled.
    static func defaultRoot() -> String {
        let cwd = FileManager.default.currentDirectoryPath
        if access(cwd + "/Tests/fixture/with-pulse.sh", X_OK) == 0 { return cwd }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// Runs this binary again under the server's fixture, which stops the
    /// server and its recorder by PID when the bench exits (`execv`).
    static func reexecUnderFixture(_ server: SoundServer, root: String, exe: String) throws -> Never {
        let script = root + "/Tests/fixture/" + server.fixture
        guard access(script, X_OK) == 0 else {
            throw BenchError("\(script) is missing; run from the sysound source tree or pass --package-root")
        }
        let args = [script, exe] + CommandLine.arguments.dropFirst()
        let argv = args.map { strdup($0) } + [nil]
        execv(script, argv)
        throw BenchError("cannot run \(script): \(String(cString: strerror(errno)))")
    }

    /// "PulseAudio 16.1" or "PipeWire 0.3.65 (pipewire-pulse)", from `pactl info`'s server name.
    static func serverVersion(_ server: SoundServer) -> String {
        let out = (try? runCapturing("/usr/bin/pactl", ["info"]))?.output ?? ""
        let line = out.split(separator: "\n").first { $0.hasPrefix("Server Name: ") }.map { String($0.dropFirst("Server Name: ".count)) }
        let version = out.split(separator: "\n").first { $0.hasPrefix("Server Version: ") }.map { String($0.dropFirst("Server Version: ".count)) }
        return "\(line ?? server.rawValue) \(version ?? "")".trimmingCharacters(in: .whitespaces)
    }

    static func loadAverage() -> String {
        (readTextFile("/proc/loadavg") ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func today() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return f.string(from: Date())
    }

    /// CPU model (/proc/cpuinfo), online cores, kernel release.
    static func machine() -> String {
        let cpuinfo = readTextFile("/proc/cpuinfo") ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        var u = utsname()
        uname(&u)
        let release = withUnsafeBytes(of: u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) × \(model), Linux \(release)"
    }
}
