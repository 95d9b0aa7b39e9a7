import Glibc
import SysoundPlatform

/// Figure 9 (docs/dbus.md): TriggerFeedback → first frame at the sink, and the
/// call's round trip, for sysound's D-Bus face and for Debian's feedbackd
/// (`/usr/libexec/feedbackd`, GSETTINGS_BACKEND=memory), each alone on the
/// same private session bus (started here) and the same null sink, driven by
/// one kept sd-bus connection of this process.
enum DBusFigure {
    static let feedbackd = "/usr/libexec/feedbackd"
    /// An event both themes sound: sysound's notification, freedesktop's message-new-instant.oga.
    static let event = "message-new-instant"
    /// Launches are spaced by the server's own sound and this much silence
    /// (the freedesktop sound lasts 1.03 s, sysound's 0.3 s).
    static let silenceBetween = 0.3
    static let roundTripSpacing = 0.03

    enum Server: String, CaseIterable { case sysound, feedbackd }

    static func run(_ c: BenchContext) throws {
        guard access(feedbackd, X_OK) == 0 else { throw BenchError("\(feedbackd) is missing (Debian package feedbackd)") }
        let bus = try PrivateSessionBus(c, directory: c.work + "/dbus")
        defer { bus.stop() }
        let (address, env) = (bus.address, bus.environment)
        let client = try Bus.open(.address(address))

        // Each server plays its own theme's sound for the event, so each run
        // fits its own clip; the reference tone checks every run.
        let clips: [Server: String] = [
            .sysound: c.themeDirectory + "/notification.wav",
            .feedbackd: "/usr/share/sounds/freedesktop/stereo/message-new-instant.oga",
        ]
        var trips: [Server: [Double]] = [:], medians: [Server: Double] = [:]
        for server in Server.allCases {
            let pid = try start(server, c, address: address, env: env)
            defer { Children.stop(pid) }
            try waitForName(client)
            let clip = try OnsetFigure.monoClip(clips[server]!)
            let spacing = Double(clip.count) / Double(SinkOnsetMeter.rate) + silenceBetween
            // Warm-up: the first sound opens devices and caches (both servers).
            _ = try trigger(client, "button-pressed")
            Clock.sleep(seconds: spacing)

            let tool = OnsetRun.Tool(label: "TriggerFeedback → sink: \(server.rawValue)") {
                let start = Clock.now()
                _ = try trigger(client, event)
                return start
            }
            let run = try OnsetRun.measure(c, [tool], perTool: c.count(30, smoke: 3),
                                           clip: clip,
                                           referenceClip: try OnsetFigure.monoClip(c.tapPath), spacing: spacing)
            medians[server] = run.median(0)
            try run.report(c, figure: "9", methodRows: false)
            // Round trips: a burst of short events, one call at a time.
            for _ in 0..<c.count(200, smoke: 10) {
                let t0 = Clock.now()
                _ = try trigger(client, "button-pressed")
                trips[server, default: []].append(Double(Clock.now() - t0) / 1e6)
                Clock.sleep(seconds: roundTripSpacing)
            }
        }
        for server in Server.allCases {
            c.report.add("9", "TriggerFeedback round trip: \(server.rawValue)", unit: "ms", trips[server] ?? [])
        }
        c.report.add("9", "ratio sysound / feedbackd (onset medians)", unit: "×",
                     value: (medians[.sysound] ?? .nan) / (medians[.feedbackd] ?? .nan), note: "target ≤ 0.5")
        c.report.notes.append("figure 9: event \(event) (sysound: notification.wav; feedbackd: freedesktop's message-new-instant.oga through libcanberra), each \(silenceBetween) s of silence after the last one's sound, the reference tone interleaved; one kept sd-bus connection, blocking calls; each server alone on a private session bus; round trips: button-pressed, \(roundTripSpacing) s apart")
    }

    static func start(_ server: Server, _ c: BenchContext, address: String, env: [String: String]) throws -> pid_t {
        var env = env
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        let log = open(c.work + "/\(server.rawValue)-dbus.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { if log >= 0 { close(log) } }
        switch server {
        case .sysound:
            let config = try IdleFigure.setIdlePause(0, in: try c.writeConfig(name: "dbus"))
            let state = c.work + "/state-dbus"
            mkdir(state, 0o700)
            return try Children.spawn(c.sysound, ["serve", "--config", config, "--state-dir", state, "--input-dir", c.work + "/no-input"],
                                      environment: env, stdout: log, stderr: log)
        case .feedbackd:
            env["GSETTINGS_BACKEND"] = "memory"
            return try Children.spawn(feedbackd, [], environment: env, stdout: log, stderr: log)
        }
    }

    /// Waits until someone owns org.sigxcpu.Feedback (GetNameOwner), up to 10 s.
    static func waitForName(_ client: Bus) throws {
        let deadline = Clock.now() + 10_000_000_000
        while Clock.now() < deadline {
            let m = try client.newMethodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                             interface: "org.freedesktop.DBus", member: "GetNameOwner")
            try m.append("org.sigxcpu.Feedback")
            if (try? client.call(m)) != nil { return }
            Clock.sleep(seconds: 0.05)
        }
        throw BenchError("nobody took org.sigxcpu.Feedback within 10 s")
    }

    static func trigger(_ client: Bus, _ event: String) throws -> UInt32 {
        let m = try client.newMethodCall(destination: "org.sigxcpu.Feedback", path: "/org/sigxcpu/Feedback",
                                         interface: "org.sigxcpu.Feedback", member: "TriggerFeedback")
        try m.append("org.example.Bench")
        try m.append(event)
        try m.append(.vardict([]))
        try m.append(Int32(-1))
        return try client.call(m).readUInt32()
    }
}
