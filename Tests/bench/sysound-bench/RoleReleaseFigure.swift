import Glibc
import SysoundClient
import SysoundCore

/// Figure 17: what a media role other than event costs, and what it gives
/// back. A daemon with the shipped configuration but a short quiet time
/// (`[audio] role_release_s`): the request → reply time of `play alarm`
/// when the alarm's stream is closed (the role's first sound: its engine,
/// OpenAL Soft context, stream and thread are made before the reply) and
/// when it is open; then the daemon's anonymous memory, threads and
/// sound-server clients idle after a tap, and after an alarm and the quiet time.
enum RoleReleaseFigure {
    static let quietSeconds = 2
    static let anonymousAfter = "anonymous memory after an alarm and the quiet time − idle after a tap"
    static let threadsAfter = "threads after an alarm and the quiet time − idle after a tap"
    static let clientsAfter = "sound-server clients after an alarm and the quiet time − idle after a tap"

    static func run(_ c: BenchContext) throws {
        let config = try c.setConfigLine("role_release_s = ", to: "\(quietSeconds)", in: try c.writeConfig(name: "roles"))
        let daemon = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: "roles")
        defer { daemon.stop() }
        let client = DaemonClient(socketPath: daemon.socketPath)
        /// One play's request → reply, ms.
        func play(_ name: String) throws -> Double {
            let start = Clock.now()
            let reply = try client.send(.play(PlayRequest(.name(name)), wait: false))
            let took = Double(Clock.now() - start) / 1e6
            guard case .ok = reply else { throw BenchError("play \(name): \(reply)") }
            return took
        }
        /// Waits until the daemon logged the alarm stream's close `count` times.
        func released(_ count: Int) throws {
            try daemon.waitForLog("alarm stream closed after", count: count, timeout: Double(quietSeconds) * 3 + 5)
        }

        _ = try play("tap")
        Clock.sleep(seconds: 1.5)  // past the idle pause: the event stream as it rests
        let idle = (memory: daemon.memory, threads: ProcFS.threadCount(of: daemon.pid), clients: clients(of: daemon.pid))

        var first: [Double] = [], warm: [Double] = []
        for take in 1...c.count(8, smoke: 2) {
            first.append(try play("alarm"))
            warm.append(try play("alarm"))
            _ = try client.send(.stop(.all))
            try released(take)
        }
        Clock.sleep(seconds: 0.5)  // the worker's close and trim have returned
        let after = (memory: daemon.memory, threads: ProcFS.threadCount(of: daemon.pid), clients: clients(of: daemon.pid))

        c.report.addWithCI("17", "play alarm, request → reply: the role's first sound (stream closed)", unit: "ms", first)
        c.report.addWithCI("17", "play alarm, request → reply: stream open", unit: "ms", warm)
        c.report.add("17", anonymousAfter, unit: "MB", value: Double(after.memory.anonymous - idle.memory.anonymous) / 1e6,
                     note: String(format: "RssAnon %.2f MB idle, %.2f MB after %d alarms each closed after %d s", Double(idle.memory.anonymous) / 1e6,
                                  Double(after.memory.anonymous) / 1e6, first.count, quietSeconds))
        c.report.add("17", threadsAfter, unit: "", value: Double(after.threads - idle.threads), note: "\(idle.threads) threads idle")
        c.report.add("17", clientsAfter, unit: "", value: Double(after.clients - idle.clients), note: "\(idle.clients) client(s) idle")
        c.report.notes.append("figure 17: role_release_s = \(quietSeconds) instead of the shipped 60 s; each take plays the alarm twice (closed, then open), stops it and waits for the close")
    }

    /// The sound-server clients of process `pid` (`pactl list clients`).
    static func clients(of pid: pid_t) -> Int {
        // -1 marks a figure that could not be read (it then shows as a change).
        guard let (status, out) = try? runCapturing("/usr/bin/pactl", ["list", "clients"]), status == 0 else { return -1 }
        return out.components(separatedBy: "application.process.id = \"\(pid)\"").count - 1
    }
}
