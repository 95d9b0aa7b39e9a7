import Glibc
import SysoundClient
import SysoundCore

/// Figure 6: control-file rename → the daemon's state changed. The new
/// `silent` file is written beforehand under a temp name; the clock starts
/// just before rename(2), and `state get silent` is asked on a kept-open
/// connection until the daemon reports the new value. The poll's round trip
/// (tens of µs) is the resolution.
enum SilentToggleFigure {
    static func run(_ c: BenchContext) throws {
        guard let daemon = c.daemon else { throw BenchError("no daemon") }
        let connection = try DaemonConnection(socketPath: daemon.socketPath)
        let target = daemon.stateDirectory + "/silent"
        let temp = daemon.stateDirectory + "/.bench-silent"
        let runs = c.count(100, smoke: 10)
        var micros: [Double] = [], polls: [Double] = []
        var timeouts = 0
        defer { try? write(temp, "0"); rename(temp, target) }
        for i in 0..<runs {
            let value = i % 2 == 0 ? "1" : "0"
            try write(temp, value)
            Clock.sleep(seconds: 0.01)  // the temp file's own events are handled before the clock starts
            let t0 = Clock.now()
            guard rename(temp, target) == 0 else { throw BenchError("rename \(temp) → \(target) failed: errno \(errno)") }
            var n = 0
            while true {
                n += 1
                guard case .ok(let fields, _) = try connection.send(.stateGet(.silent)) else {
                    throw BenchError("state get silent was refused")
                }
                if fields["silent"] == value {
                    micros.append(Double(Clock.now() - t0) / 1000)
                    polls.append(Double(n))
                    break
                }
                if Clock.now() - t0 > 1_000_000_000 { timeouts += 1; break }
            }
            Clock.sleep(seconds: 0.01)
        }
        c.report.add("6", "silent rename → daemon state", unit: "µs", micros)
        c.report.add("6", "state get polls until seen", unit: "polls", polls)
        if timeouts > 0 { c.report.problems.append("figure 6: \(timeouts) of \(runs) toggles not seen within 1 s") }
    }

    static func write(_ path: String, _ value: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchError("cannot write \(path): errno \(errno)") }
        defer { close(fd) }
        var bytes = Array((value + "\n").utf8)
        guard bytes.withUnsafeMutableBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw BenchError("short write to \(path)")
        }
    }
}
