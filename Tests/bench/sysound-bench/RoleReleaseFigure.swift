import Glibc
import SysoundClient
import SysoundCore

/// Figure 17: what a media role other than event costs, and what it gives
/// back. A daemon with the shipped configuration but a short quiet time
/// (`[audio] role_release_s`): the request → reply time of `play alarm`
/// when the alarm's stream is closed (the role's first sound: its engine,
/// OpenAL Soft context, stream and thread are made before the reply) and
/// when it is open; the daemon's threads, audio threads (`sysound-audio`)
/// and sound-server clients while the alarm plays, against idle after a tap
/// (every role's stream is on one connection, rendered by one thread); then
/// its anonymous memory, threads and clients after the alarm and the quiet time.
enum RoleReleaseFigure {
    /// `role_release_s` here: 2 s, a smoke run the least the key takes (1 s),
    /// as each take waits for the close.
    static func releaseSeconds(_ c: BenchContext) -> Int { c.count(2, smoke: 1) }
    static let anonymousAfter = "anonymous memory after an alarm and the quiet time − idle after a tap"
    static let threadsAfter = "threads after an alarm and the quiet time − idle after a tap"
    static let clientsAfter = "sound-server clients after an alarm and the quiet time − idle after a tap"
    static let threadsPlaying = "threads while an alarm plays − idle after a tap"
    static let audioThreadsPlaying = "audio threads (sysound-audio) while an alarm plays − idle after a tap"
    static let clientsPlaying = "sound-server clients while an alarm plays − idle after a tap"

    static func run(_ c: BenchContext) throws {
        let quietSeconds = releaseSeconds(c)
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
        let idleAudio = audioThreads(of: daemon.pid)

        var first: [Double] = [], warm: [Double] = []
        var playing: (threads: Int, audio: Int, clients: Int)?
        for take in 1...c.count(8, smoke: 2) {
            first.append(try play("alarm"))
            warm.append(try play("alarm"))
            // Once, while the alarm (about 1.5 s) plays on its open stream.
            if playing == nil {
                playing = (ProcFS.threadCount(of: daemon.pid), audioThreads(of: daemon.pid), clients(of: daemon.pid))
            }
            _ = try client.send(.stop(.all))
            try released(take)
        }
        Clock.sleep(seconds: 0.5)  // the worker's close and trim have returned
        let after = (memory: daemon.memory, threads: ProcFS.threadCount(of: daemon.pid), clients: clients(of: daemon.pid))

        c.report.addWithCI("17", "play alarm, request → reply: the role's first sound (stream closed)", unit: "ms", first)
        c.report.addWithCI("17", "play alarm, request → reply: stream open", unit: "ms", warm)
        if let playing {
            c.report.add("17", threadsPlaying, unit: "", value: Double(playing.threads - idle.threads),
                         note: "\(idle.threads) threads idle, \(playing.threads) while the alarm plays: the role's OpenAL Soft context starts an event thread (asleep)")
            c.report.add("17", audioThreadsPlaying, unit: "", value: Double(playing.audio - idleAudio),
                         note: "\(idleAudio) idle: every role's stream is rendered on the one connection's thread")
            c.report.add("17", clientsPlaying, unit: "", value: Double(playing.clients - idle.clients),
                         note: "\(idle.clients) client(s) idle: every role's stream is on the one connection")
        }
        c.report.add("17", anonymousAfter, unit: "MB", value: Double(after.memory.anonymous - idle.memory.anonymous) / 1e6,
                     note: String(format: "RssAnon %.2f MB idle, %.2f MB after %d alarms each closed after %d s", Double(idle.memory.anonymous) / 1e6,
                                  Double(after.memory.anonymous) / 1e6, first.count, quietSeconds))
        c.report.add("17", threadsAfter, unit: "", value: Double(after.threads - idle.threads), note: "\(idle.threads) threads idle")
        c.report.add("17", clientsAfter, unit: "", value: Double(after.clients - idle.clients), note: "\(idle.clients) client(s) idle")
        c.report.notes.append("figure 17: role_release_s = \(quietSeconds) instead of the shipped 60 s; each take plays the alarm twice (closed, then open), stops it and waits for the close")
    }

    /// The threads of process `pid` named `sysound-audio`: the own streams' mainloop.
    static func audioThreads(of pid: pid_t) -> Int {
        ProcFS.threads(of: pid).keys.filter { $0.hasPrefix("sysound-audio[") }.count
    }

    /// The sound-server clients of process `pid` (`pactl list clients`).
    static func clients(of pid: pid_t) -> Int {
        // -1 marks a figure that could not be read (it then shows as a change).
        guard let (status, out) = try? runCapturing("/usr/bin/pactl", ["list", "clients"]), status == 0 else { return -1 }
        return out.components(separatedBy: "application.process.id = \"\(pid)\"").count - 1
    }
}
