import Glibc
import SysoundAudio
import SysoundBus

/// Figure 9 (issue 14): TriggerFeedback → first frame at the sink, and the
/// call's round trip, for sysound's D-Bus face and for Debian's feedbackd
/// (`/usr/libexec/feedbackd`, GSETTINGS_BACKEND=memory), each alone on the
/// same private session bus (started here) and the same null sink, driven by
/// one kept sd-bus connection of this process.
enum DBusFigure {
    static let feedbackd = "/usr/libexec/feedbackd"
    /// An event both themes sound: sysound's notification, freedesktop's message-new-instant.oga.
    static let event = "message-new-instant"
    static let spacing = 1.3  // the freedesktop sound lasts 1.03 s
    static let roundTripSpacing = 0.03

    enum Server: String, CaseIterable { case sysound, feedbackd }

    static func run(_ c: BenchContext) throws {
        guard access(feedbackd, X_OK) == 0 else { throw BenchError("\(feedbackd) is missing (Debian package feedbackd)") }
        let dir = c.work + "/dbus"
        mkdir(dir, 0o700)
        var env = currentEnvironment()
        env["SYSOUND_DBUS_DIR"] = dir
        let ctl = c.root + "/Tests/fixture/dbus-ctl.sh"
        guard Children.wait(try Children.spawn(ctl, ["start", "session"], environment: env)) == 0 else {
            throw BenchError("\(ctl) start session failed")
        }
        defer { _ = Children.wait((try? Children.spawn(ctl, ["stop", "session"], environment: env)) ?? -1) }
        let address = "unix:path=\(dir)/session.sock"
        let client = try Bus.open(.address(address))

        let freedesktop = "/usr/share/sounds/freedesktop/stereo/message-new-instant.oga"
        let clipOnsets: [Server: Int] = [
            .sysound: try onsetFrames(of: c.themeDirectory + "/notification.wav"),
            .feedbackd: try onsetFrames(of: freedesktop),
        ]
        var onsets: [Server: [Double]] = [:], trips: [Server: [Double]] = [:]
        var missed = 0
        for server in Server.allCases {
            let pid = try start(server, c, address: address, env: env)
            defer { Children.stop(pid) }
            try waitForName(client)
            // Warm-up: the first sound opens devices and caches (both servers).
            _ = try trigger(client, "button-pressed")
            Clock.sleep(seconds: spacing)

            let recorder = try MonitorRecorder(sink: c.sink)
            defer { recorder.stop() }
            Clock.sleep(seconds: 0.5)
            var launches: [UInt64] = []
            var next = Clock.now()
            for _ in 0..<c.count(30, smoke: 3) {
                Clock.sleep(until: next)
                let start = Clock.now()
                next = start + UInt64(spacing * 1e9)
                _ = try trigger(client, event)
                launches.append(start)
            }
            Clock.sleep(seconds: 0.5)
            let (reads, levels) = recorder.snapshot()
            for t0 in launches {
                if let ms = onsetMs(t0, reads: reads, levels: levels, clipOnset: clipOnsets[server]!) {
                    onsets[server, default: []].append(ms)
                } else {
                    missed += 1
                }
            }
            // Round trips: a burst of short events, one call at a time.
            for _ in 0..<c.count(200, smoke: 10) {
                let t0 = Clock.now()
                _ = try trigger(client, "button-pressed")
                trips[server, default: []].append(Double(Clock.now() - t0) / 1e6)
                Clock.sleep(seconds: roundTripSpacing)
            }
        }
        for server in Server.allCases {
            c.report.add("9", "TriggerFeedback → sink: \(server.rawValue)", unit: "ms", onsets[server] ?? [])
        }
        for server in Server.allCases {
            c.report.add("9", "TriggerFeedback round trip: \(server.rawValue)", unit: "ms", trips[server] ?? [])
        }
        let medians = Server.allCases.map { Summary(onsets[$0] ?? [])?.median ?? .nan }
        c.report.add("9", "ratio sysound / feedbackd (onset medians)", unit: "×", value: medians[0] / medians[1],
                     note: "target ≤ 0.5")
        if missed > 0 { c.report.problems.append("figure 9: \(missed) onsets not found") }
        c.report.notes.append("figure 9: event \(event) (sysound: notification.wav; feedbackd: freedesktop's message-new-instant.oga through libcanberra), \(spacing) s apart; one kept sd-bus connection, blocking calls; each server alone on a private session bus; round trips: button-pressed, \(roundTripSpacing) s apart")
    }

    static func start(_ server: Server, _ c: BenchContext, address: String, env: [String: String]) throws -> pid_t {
        var env = env
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        let log = open(c.work + "/\(server.rawValue)-dbus.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { if log >= 0 { close(log) } }
        switch server {
        case .sysound:
            let config = try c.writeConfig(name: "dbus")
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

    /// Frames from a clip's first sample to its first above the threshold.
    static func onsetFrames(of path: String) throws -> Int {
        let clip = try SoundDecoder().decode(path: path)
        guard let loud = clip.samples.firstIndex(where: { abs(Double($0)) > OnsetFigure.threshold }) else {
            throw BenchError("\(path) never exceeds −24 dBFS")
        }
        return loud / max(clip.channels, 1)
    }

    /// The onset in ms after `t0`, as figure 2 finds it: S (the sink clock) from
    /// the reads in the 150 ms after t0, then the first frame above the threshold.
    static func onsetMs(_ t0: UInt64, reads: [MonitorRecorder.Read], levels: [Int16], clipOnset: Int) -> Double? {
        let rate = MonitorRecorder.rate, window: UInt64 = 150_000_000
        var s = Double.infinity
        for r in reads where r.time >= t0 && r.time <= t0 + window {
            s = min(s, Double(r.time) - Double(r.frames) / rate * 1e9)
        }
        guard s.isFinite else { return nil }
        let k0 = Int(((Double(t0) - s) / 1e9 * rate).rounded())
        let end = min(levels.count, k0 + Int(0.5 * rate))
        let level = Int16(OnsetFigure.threshold * 32768)
        guard k0 > 0, end > k0, let onset = (k0..<end).first(where: { levels[$0] > level }) else { return nil }
        return Double(onset - clipOnset - k0) / rate * 1000
    }
}
