import Glibc
import SysoundPlatform
import SysoundClient
import SysoundCore

/// Figure 10: logind's `LockedHint` → the daemon's state. A private system
/// bus (Tests/fixture/dbus-ctl.sh) carries python-dbusmock's logind
/// (mock-ctl.sh, shaped by session-mock.py) and a daemon following its
/// session. The clock starts just before the bench's own `SetLockedHint`
/// call — what a locker does — and stops when `state get locked`, asked on a
/// kept-open connection, reports the new value; the blocking call's round
/// trip through the mock (~1 ms of Python) is inside the figure, as a real
/// logind's would be.
enum LockedHintFigure {
    static let session = "/org/freedesktop/login1/session/1"

    static func run(_ c: BenchContext) throws {
        let dir = c.work + "/dbus"
        mkdir(dir, 0o700)
        let address = "unix:path=\(dir)/system.sock"
        // The daemon and the fixture scripts inherit these; restored after.
        let saved = ["SYSOUND_DBUS_DIR", "DBUS_SYSTEM_BUS_ADDRESS"].map { (name: String) in (name, getenv(name).map { String(cString: $0) }) }
        setenv("SYSOUND_DBUS_DIR", dir, 1)
        setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1)
        defer {
            for (name, value) in saved { if let value { setenv(name, value, 1) } else { unsetenv(name) } }
        }
        let fixture = c.root + "/Tests/fixture"
        try script(fixture + "/dbus-ctl.sh", ["start", "system"])
        defer { try? script(fixture + "/dbus-ctl.sh", ["stop", "system"]) }
        try script(fixture + "/mock-ctl.sh", ["start", "logind"])
        defer { try? script(fixture + "/mock-ctl.sh", ["stop", "logind"]) }
        try script("/usr/bin/python3", [fixture + "/session-mock.py", "add-session", "1"])
        try script("/usr/bin/python3", [fixture + "/session-mock.py", "display", "1"])

        // The state directory on tmpfs, as $XDG_RUNTIME_DIR is on a real
        // system: the lock is written as the CLI writes it, with an fsync that
        // costs milliseconds on a disk (the bench's /tmp may be one) and
        // nothing on tmpfs.
        var shm = Array("/dev/shm/sysound-bench-lock.XXXXXX".utf8CString)
        let runtime = shm.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) } ?? c.work
        defer { if runtime != c.work { _ = try? script("/bin/rm", ["-rf", runtime]) } }
        let daemon = try BenchDaemon(binary: c.sysound, config: try c.writeConfig(name: "lock"), workDirectory: runtime, name: "lock")
        defer { daemon.stop() }
        let connection = try DaemonConnection(socketPath: daemon.socketPath)
        let bus = try Bus.open(.address(address))
        let runs = c.count(100, smoke: 10)
        var micros: [Double] = [], calls: [Double] = []
        var timeouts = 0
        // Two runs (lock, unlock) wait for the daemon to find the session; they are not counted.
        for i in -2..<runs {
            let locked = i & 1 == 0
            let call = try bus.newMethodCall(
                destination: "org.freedesktop.login1", path: session, interface: "org.freedesktop.login1.Session", member: "SetLockedHint")
            try call.append(locked)
            let t0 = Clock.now()
            _ = try bus.call(call)
            if i >= 0 { calls.append(Double(Clock.now() - t0) / 1000) }
            let limit: UInt64 = i < 0 ? 10_000_000_000 : 1_000_000_000
            while true {
                guard case .ok(let fields, _) = try connection.send(.stateGet(.locked)) else {
                    throw BenchError("state get locked was refused")
                }
                if fields["locked"] == (locked ? "1" : "0") {
                    if i >= 0 { micros.append(Double(Clock.now() - t0) / 1000) }
                    break
                }
                if Clock.now() - t0 > limit {
                    if i < 0 { throw BenchError("the daemon never followed the mock logind's session (its log: \(daemon.logPath))") }
                    timeouts += 1
                    break
                }
            }
            Clock.sleep(seconds: 0.01)
        }
        c.report.add("10", "SetLockedHint → daemon state", unit: "µs", micros)
        c.report.add("10", "of which the call to the mock logind (Python)", unit: "µs", calls)
        if timeouts > 0 { c.report.problems.append("figure 10: \(timeouts) of \(runs) LockedHint changes not seen within 1 s") }
    }

    /// Runs a fixture script to its end; its output goes to the bench's stderr.
    static func script(_ path: String, _ arguments: [String]) throws {
        let pid = try Children.spawn(path, arguments, stdout: 2, stderr: 2)
        let status = Children.wait(pid)
        guard status == 0 else { throw BenchError("\(path) \(arguments.joined(separator: " ")) failed (status \(status))") }
    }
}
