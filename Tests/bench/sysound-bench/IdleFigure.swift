import SysoundCore
import Foundation
import Glibc
import SysoundAudio

/// Figure 8: the daemon's CPU use with nothing playing, over 10 s; on-CPU
/// time from every thread's schedstat (ns), sampled in 1 s windows. The sound
/// server's CPU in the same windows is shown beside it (PulseAudio; on PipeWire
/// pipewire, pipewire-pulse and wireplumber together): an open, running stream
/// keeps it mixing too.
///
/// The shipped configuration pauses the output device after `idle_pause_ms`
/// with nothing playing: its row is measured after that time (device paused).
/// The rows with `idle_pause_ms = 0` show what a running device costs, at the
/// default mixing period, a lower and a higher one (periods as shipped).
enum IdleFigure {
    /// The shipped configuration's row, as the targets look it up.
    static var shippedLabel: String { "period \(AudioSettings().periodFrames)×\(AudioSettings().periods) (default)" }

    static func run(_ c: BenchContext) throws {
        let serverPids = c.server.pids()
        let windows = c.count(10, smoke: 2)
        let window = c.seconds(1, smoke: 0.25)
        if !serverPids.isEmpty {
            // The server's own cost with only the fixture's recorders attached, for comparison.
            let (shares, _, _) = sample(nil, serverPids, windows: c.count(3, smoke: 1), window: window)
            c.report.add("8", "\(c.server.label), no daemon", unit: "% core", shares)
        }
        let shipped = try c.writeConfig(name: "idle-shipped")
        let pauseMs = try idlePause(in: shipped)
        // writeConfig changes period_frames only: every row has the shipped periods.
        let shippedPeriod = AudioSettings().periodFrames, periods = AudioSettings().periods

        var runs = [(frames: shippedPeriod, pause: pauseMs, label: shippedLabel)]
        if pauseMs > 0 {
            runs += [(shippedPeriod, 0, "device running (idle_pause_ms = 0), period \(shippedPeriod)×\(periods)")]
        }
        runs += [(64, 0, "device running (idle_pause_ms = 0), period 64×\(periods)"),
                 (1024, 0, "device running (idle_pause_ms = 0), period 1024×\(periods)")]
        for run in runs {
            let name = "idle-\(run.frames)-\(run.pause)"
            let config = try setIdlePause(run.pause, in: try c.writeConfig(name: name, periodFrames: run.frames))
            let daemon = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: name)
            defer { daemon.stop() }
            // Past start-up work, and past the idle time when the device pauses.
            let settle = c.seconds(1, smoke: 0.3) + Double(run.pause) / 1000
            Clock.sleep(seconds: settle)
            let threads0 = ProcFS.threads(of: daemon.pid)
            let (serverShares, daemonShares, total) = sample(daemon.pid, serverPids, windows: windows, window: window)
            let elapsed = Double(windows) * window
            let busiest = ProcFS.byThread(threads0, ProcFS.threads(of: daemon.pid), \.cpuNanoseconds)
                .map { ($0.0, Double($0.1) / (elapsed * 1e7)) }.filter { $0.1 >= 0.005 }
                .map { String(format: "%@ %.2f %%", $0.0, $0.1) }.joined(separator: ", ")
            let state = run.pause > 0
                ? String(format: "shipped config: device paused after idle_pause_ms = %d, sampled from %.1f s after start; ", run.pause, settle)
                : ""
            c.report.add("8", "daemon idle CPU, \(run.label)", unit: "% core", daemonShares,
                         note: state + String(format: "%.3f %% of a core over %.0f s; by thread: %@", total, elapsed, busiest))
            if !serverPids.isEmpty {
                c.report.add("8", "\(c.server.label) meanwhile, \(run.label)", unit: "% core", serverShares)
            }
        }
    }

    /// The `idle_pause_ms` of a config file (the shipped one's, copied by `writeConfig`).
    static func idlePause(in path: String) throws -> Int {
        let text = readTextFile(path) ?? ""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("idle_pause_ms = ") }),
              let ms = Int(line.dropFirst("idle_pause_ms = ".count).trimmingCharacters(in: .whitespaces))
        else { throw BenchError("\(path) has no line \"idle_pause_ms = N\"; the bench reads and edits that key") }
        return ms
    }

    /// Rewrites the `idle_pause_ms` line of a config file written by `writeConfig`; returns the path.
    static func setIdlePause(_ ms: Int, in path: String) throws -> String {
        _ = try idlePause(in: path)
        let lines = (readTextFile(path) ?? "").components(separatedBy: "\n")
            .map { $0.hasPrefix("idle_pause_ms = ") ? "idle_pause_ms = \(ms)" : $0 }
        try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// CPU shares (% of one core) of the server's processes (together) and
    /// the daemon in `windows` consecutive windows, and the daemon's share
    /// over all of them.
    static func sample(_ daemon: pid_t?, _ server: [pid_t], windows: Int, window: Double) -> ([Double], [Double], Double) {
        var daemonShares: [Double] = [], serverShares: [Double] = []
        let serverThreads = { ProcFS.threads(of: server) }
        var d0 = daemon.map { ProcFS.threads(of: $0) } ?? [:], p0 = serverThreads()
        var t0 = Clock.now()
        let first = t0
        var daemonTotal: UInt64 = 0
        for _ in 0..<windows {
            Clock.sleep(until: t0 + UInt64(window * 1e9))
            let d1 = daemon.map { ProcFS.threads(of: $0) } ?? [:], p1 = serverThreads(), t1 = Clock.now()
            let d = ProcFS.spent(d0, d1, \.cpuNanoseconds)
            daemonTotal += d
            daemonShares.append(Double(d) / Double(t1 - t0) * 100)
            serverShares.append(Double(ProcFS.spent(p0, p1, \.cpuNanoseconds)) / Double(t1 - t0) * 100)
            (d0, p0, t0) = (d1, p1, t1)
        }
        return (serverShares, daemonShares, Double(daemonTotal) / Double(t0 - first) * 100)
    }
}
