import Glibc

/// Figure 19: the first sound of a session. `sysound.socket` is enabled and
/// no daemon runs yet; the first `sysound play tap` connects, systemd starts
/// the daemon on the passed socket, and the daemon answers. Here the socket
/// is passed as systemd passes it (`LISTEN_FDS`), by systemd's own
/// `systemd-socket-activate` (no `systemd --user` runs in the bench's
/// container); launch → the clip's first sample at the sink beside `paplay`,
/// validated by the reference tone as figure 2 is (OnsetRun). Each launch
/// finds a new activator with no daemon behind it, started outside the timing.
enum SessionStartFigure {
    static let figure = "19"
    static let activator = "/usr/bin/systemd-socket-activate"

    enum Tool: Int, CaseIterable {
        case firstOfSession, paplay
        var label: String {
            switch self {
            case .firstOfSession: "launch → sink: sysound play tap, the session's first (socket activation)"
            case .paplay: "launch → sink: paplay tap.wav (a new stream)"
            }
        }
    }

    static let ratio = "ratio first of session / paplay (launch → sink, medians)"

    /// The activator listening, its daemon not started yet.
    final class Session {
        let c: BenchContext
        let state: String
        var pid: pid_t?
        var socket: String { state + "/socket" }

        init(_ c: BenchContext) {
            self.c = c
            state = c.work + "/state-session"
        }

        /// Stops the last session's daemon and listens anew: the next request starts a daemon.
        func fresh() throws {
            stop()
            mkdir(state, 0o700)
            unlink(socket)
            let config = try c.writeConfig(name: "session")
            // The activator passes on only what -E names: the sound server the fixture pinned.
            let passed = ["PULSE_SERVER", "PULSE_RUNTIME_PATH", "PULSE_CLIENTCONFIG", "ALSOFT_DRIVERS", "XDG_RUNTIME_DIR"].flatMap { ["-E", $0] }
            let log = open(c.work + "/session-daemon.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            defer { if log >= 0 { close(log) } }
            pid = try Children.spawn(activator, ["--seqpacket", "-l", socket] + passed + [
                c.sysound, "serve", "--config", config, "--state-dir", state, "--input-dir", c.work + "/no-input",
            ], stdout: log, stderr: log)
            let deadline = Clock.now() + 5_000_000_000
            while access(socket, F_OK) != 0 {
                guard Clock.now() < deadline else { throw BenchError("\(activator) did not listen on \(socket) within 5 s") }
                Clock.sleep(seconds: 0.005)
            }
        }

        /// The activator execs the daemon in its own process: one pid for both.
        func stop() {
            if let pid { Children.stop(pid) }
            pid = nil
        }
    }

    static func run(_ c: BenchContext) throws {
        guard access(activator, X_OK) == 0 else { throw BenchError("\(activator) is missing (Debian package systemd)") }
        mkdir(c.work + "/no-input", 0o700)
        let session = Session(c)
        defer { session.stop() }
        let play = { () throws -> Int32 in
            exitCode(Children.wait(try Children.spawn(c.sysound, ["play", "tap", "--state-dir", session.state])))
        }
        // A first session outside the timing: the page cache holds the binaries and the theme, as after any earlier use.
        try session.fresh()
        guard try play() == 0 else {
            throw BenchError("sysound play tap through a socket-activated daemon failed; see \(c.work)/session-daemon.log")
        }
        let clip = try OnsetFigure.monoClip(c.tapPath)
        let tools = Tool.allCases.map { tool in
            OnsetRun.Tool(label: tool.label) {
                switch tool {
                case .firstOfSession:
                    try session.fresh()
                    let start = Clock.now()
                    guard try play() == 0 else { throw BenchError("sysound play tap failed on a fresh session") }
                    return start
                case .paplay:
                    let start = Clock.now()
                    Children.wait(try Children.spawn("/usr/bin/paplay", [c.tapPath]))
                    return start
                }
            }
        }
        let run = try OnsetRun.measure(c, tools, perTool: c.count(20, smoke: 3), clip: clip)
        let latencies = run.latencies
        c.report.add(figure, ratio, unit: "×",
                     value: run.median(Tool.firstOfSession.rawValue) / run.median(Tool.paplay.rawValue),
                     ci95: Bootstrap.ratioCI(latencies[Tool.firstOfSession.rawValue], latencies[Tool.paplay.rawValue]),
                     note: "target ≤ 2; the daemon started by systemd-socket-activate (LISTEN_FDS), not under systemd --user")
        try run.report(c, figure: figure)
    }
}
