import Foundation
import Glibc

/// Figure 8: the daemon's CPU use with nothing playing, over 10 s, at the
/// default mixing period (256 frames × 2), a lower and a higher one; on-CPU
/// time from every thread's schedstat (ns), sampled in 1 s windows. The
/// PulseAudio server's CPU in the same windows is shown beside it: the
/// daemon's open stream keeps it mixing too.
enum IdleFigure {
    static func run(_ c: BenchContext) throws {
        let pulsePid = readTextFile((currentEnvironment()["SYSOUND_FIXTURE_DIR"] ?? "") + "/pulse.pid")
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let windows = c.count(10, smoke: 2)
        let window = c.seconds(1, smoke: 0.5)
        for (frames, label) in [(128, "128×2"), (256, "256×2 (default)"), (1024, "1024×2")] {
            let config = try c.writeConfig(name: "idle-\(frames)", periodFrames: frames)
            let daemon = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: "idle-\(frames)")
            defer { daemon.stop() }
            Clock.sleep(seconds: c.seconds(1, smoke: 0.3))  // past start-up work
            var daemonShares: [Double] = [], pulseShares: [Double] = []
            var d0 = cpuNanoseconds(of: daemon.pid), p0 = pulsePid.map(cpuNanoseconds) ?? 0
            var t0 = Clock.now()
            let first = (d0, t0)
            for _ in 0..<windows {
                Clock.sleep(until: t0 + UInt64(window * 1e9))
                let d1 = cpuNanoseconds(of: daemon.pid), p1 = pulsePid.map(cpuNanoseconds) ?? 0, t1 = Clock.now()
                daemonShares.append(Double(d1 - d0) / Double(t1 - t0) * 100)
                pulseShares.append(Double(p1 &- p0) / Double(t1 - t0) * 100)
                (d0, p0, t0) = (d1, p1, t1)
            }
            let total = Double(d0 - first.0) / Double(t0 - first.1) * 100
            c.report.add("8", "daemon idle CPU, period \(label)", unit: "% core", daemonShares,
                         note: String(format: "%.3f %% of a core over the whole %.0f s", total, Double(windows) * window))
            if pulsePid != nil {
                c.report.add("8", "PulseAudio server meanwhile, period \(label)", unit: "% core", pulseShares)
            }
        }
    }
}
