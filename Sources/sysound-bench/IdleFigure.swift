import Foundation
import Glibc

/// Figure 8: the daemon's CPU use with nothing playing, over 10 s, at the
/// default mixing period (128 frames × 2), a lower and a higher one; on-CPU
/// time from every thread's schedstat (ns), sampled in 1 s windows. The
/// PulseAudio server's CPU in the same windows is shown beside it: the
/// daemon's open stream keeps it mixing too.
enum IdleFigure {
    static func run(_ c: BenchContext) throws {
        let pulsePid = readTextFile((currentEnvironment()["SYSOUND_FIXTURE_DIR"] ?? "") + "/pulse.pid")
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let windows = c.count(10, smoke: 2)
        let window = c.seconds(1, smoke: 0.5)
        if let pulsePid {
            // The server's own cost with only the fixture's recorders attached, for comparison.
            let (shares, _, _) = sample(nil, pulsePid, windows: c.count(3, smoke: 1), window: window)
            c.report.add("8", "PulseAudio server, no daemon", unit: "% core", shares)
        }
        for (frames, label) in [(128, "128×2 (default)"), (64, "64×2"), (1024, "1024×2")] {
            let config = try c.writeConfig(name: "idle-\(frames)", periodFrames: frames)
            let daemon = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: "idle-\(frames)")
            defer { daemon.stop() }
            Clock.sleep(seconds: c.seconds(1, smoke: 0.3))  // past start-up work
            let threads0 = cpuByThread(of: daemon.pid)
            let (pulseShares, daemonShares, total) = sample(daemon.pid, pulsePid, windows: windows, window: window)
            let threads1 = cpuByThread(of: daemon.pid)
            let elapsed = Double(windows) * window
            let busiest = threads1.map { name, ns in (name, Double(ns &- (threads0[name] ?? 0)) / (elapsed * 1e7)) }
                .filter { $0.1 >= 0.005 }.sorted { $0.1 > $1.1 }
                .map { String(format: "%@ %.2f %%", $0.0, $0.1) }.joined(separator: ", ")
            c.report.add("8", "daemon idle CPU, period \(label)", unit: "% core", daemonShares,
                         note: String(format: "%.3f %% of a core over %.0f s; by thread: %@", total, elapsed, busiest))
            if pulsePid != nil {
                c.report.add("8", "PulseAudio server meanwhile, period \(label)", unit: "% core", pulseShares)
            }
        }
    }

    /// CPU shares (% of one core) of PulseAudio and the daemon in `windows`
    /// consecutive windows, and the daemon's share over all of them.
    static func sample(_ daemon: pid_t?, _ pulse: pid_t?, windows: Int, window: Double) -> ([Double], [Double], Double) {
        var daemonShares: [Double] = [], pulseShares: [Double] = []
        var d0 = daemon.map(cpuNanoseconds) ?? 0, p0 = pulse.map(cpuNanoseconds) ?? 0
        var t0 = Clock.now()
        let first = (d0, t0)
        for _ in 0..<windows {
            Clock.sleep(until: t0 + UInt64(window * 1e9))
            let d1 = daemon.map(cpuNanoseconds) ?? 0, p1 = pulse.map(cpuNanoseconds) ?? 0, t1 = Clock.now()
            daemonShares.append(Double(d1 &- d0) / Double(t1 - t0) * 100)
            pulseShares.append(Double(p1 &- p0) / Double(t1 - t0) * 100)
            (d0, p0, t0) = (d1, p1, t1)
        }
        return (pulseShares, daemonShares, Double(d0 &- first.0) / Double(t0 - first.1) * 100)
    }

    /// On-CPU nanoseconds of each thread of `pid`, as "name[tid]" (/proc/PID/task/*/comm, schedstat).
    static func cpuByThread(of pid: pid_t) -> [String: UInt64] {
        guard let dir = opendir("/proc/\(pid)/task") else { return [:] }
        defer { closedir(dir) }
        var result: [String: UInt64] = [:]
        while let entry = readdir(dir) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard tid.first?.isNumber == true,
                  let name = readTextFile("/proc/\(pid)/task/\(tid)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines),
                  let ns = readTextFile("/proc/\(pid)/task/\(tid)/schedstat")?.split(separator: " ").first.flatMap({ UInt64($0) })
            else { continue }
            result["\(name)[\(tid)]", default: 0] += ns
        }
        return result
    }
}
