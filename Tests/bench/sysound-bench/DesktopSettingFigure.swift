import CGio
import Glibc
import SysoundClient
import SysoundCore

/// Figure 13: a desktop setting flipped → the policy applied. A private
/// session bus (Tests/fixture/dbus-ctl.sh) with dconf-service on it
/// (dconf-ctl.sh) and a private dconf database; the daemon follows GNOME's
/// keys through GSettings on its loop. The clock stops when `status`, asked
/// on a kept-open connection, shows `do-not-disturb` changed: from then on
/// the next request is decided under it. Two ways of writing the key:
///
/// - in-process, as a settings app does (GNOME Settings' switch,
///   phosh-mobile-settings): the bench writes it through GIO's GSettings in
///   its own process; the clock starts just before `g_settings_set_boolean`;
/// - launching `gsettings set org.gnome.desktop.notifications show-banners …`;
///   the clock starts just before the spawn. The tool's own time until it
///   exits is a row of its own: most of this one is the tool starting.
enum DesktopSettingFigure {
    /// The rows, as Targets looks them up. The target ("`gsettings
    /// set` → policy applied ≤ 20 ms") is judged on `inProcess`: a settings
    /// app writes the key from its own running process (GNOME Settings,
    /// phosh-mobile-settings), and the tool's start-up is no part of that path.
    static let toolLaunch = "launch of `gsettings set` → policy applied"
    static let inProcess = "in-process g_settings_set (a settings app) → policy applied"
    static let toolAlone = "of which: the gsettings tool, start to exit"

    static func run(_ c: BenchContext) throws {
        guard access("/usr/libexec/dconf-service", X_OK) == 0 else {
            throw BenchError("no /usr/libexec/dconf-service; install dconf-service (make test-deps does)")
        }
        let dir = c.work + "/desktop"
        mkdir(dir, 0o700)
        mkdir(dir + "/config", 0o700)
        let profile = dir + "/dconf-profile"
        try SilentToggleFigure.write(profile, "user-db:user")
        // The daemon, the tool and the fixture scripts inherit these; restored after.
        let names = ["SYSOUND_DBUS_DIR", "DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME", "DCONF_PROFILE", "GSETTINGS_BACKEND"]
        let saved = names.map { (name: String) in (name, getenv(name).map { String(cString: $0) }) }
        setenv("SYSOUND_DBUS_DIR", dir, 1)
        setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=\(dir)/session.sock", 1)
        setenv("XDG_CONFIG_HOME", dir + "/config", 1)
        setenv("DCONF_PROFILE", profile, 1)
        unsetenv("GSETTINGS_BACKEND")
        defer {
            for (name, value) in saved { if let value { setenv(name, value, 1) } else { unsetenv(name) } }
        }
        let fixture = c.root + "/Tests/fixture"
        try LockedHintFigure.script(fixture + "/dbus-ctl.sh", ["start", "session"])
        defer { try? LockedHintFigure.script(fixture + "/dbus-ctl.sh", ["stop", "session"]) }
        try LockedHintFigure.script(fixture + "/dconf-ctl.sh", ["start"])
        defer { try? LockedHintFigure.script(fixture + "/dconf-ctl.sh", ["stop"]) }

        let daemon = try BenchDaemon(binary: c.sysound, config: try c.writeConfig(name: "desktop"), workDirectory: dir, name: "desktop")
        defer { daemon.stop() }
        let connection = try DaemonConnection(socketPath: daemon.socketPath)
        let runs = c.count(50, smoke: 6)
        var applied: [Double] = [], tool: [Double] = []
        var timeouts = 0
        defer { _ = try? Children.spawn("/usr/bin/env", ["gsettings", "reset", "org.gnome.desktop.notifications", "show-banners"]) }
        for i in 0..<runs {
            let dnd = i % 2 == 0
            let t0 = Clock.now()
            let pid = try Children.spawn(
                "/usr/bin/env", ["gsettings", "set", "org.gnome.desktop.notifications", "show-banners", dnd ? "false" : "true"],
                stdout: 2, stderr: 2)
            var seen: UInt64?, exited: UInt64?
            while seen == nil || exited == nil {
                if exited == nil, Children.hasExited(pid) { exited = Clock.now() }
                if seen == nil {
                    guard case .ok(let fields, _) = try connection.send(.status) else { throw BenchError("status was refused") }
                    if fields["do-not-disturb"] == (dnd ? "on" : "off") { seen = Clock.now() }
                }
                if Clock.now() - t0 > 2_000_000_000 { break }
            }
            if exited == nil { Children.stop(pid) }
            if let seen { applied.append(Double(seen - t0) / 1e6) } else { timeouts += 1 }
            if let exited { tool.append(Double(exited - t0) / 1e6) }
            Clock.sleep(seconds: 0.02)
        }
        let inProcess = try writesInProcess(c, connection, runs: runs, timeouts: &timeouts)
        c.report.add("13", Self.inProcess, unit: "ms", inProcess,
                     note: "the bench writes show-banners through GIO's GSettings (dconf) in its own process, as a settings app does; the clock starts just before g_settings_set_boolean")
        c.report.add("13", Self.toolLaunch, unit: "ms", applied,
                     note: "the clock starts just before posix_spawn of `gsettings set`; most of it is the tool's own start-up (next row)")
        c.report.add("13", Self.toolAlone, unit: "ms", tool)
        if timeouts > 0 { c.report.problems.append("figure 13: \(timeouts) of \(runs) changes not applied within 2 s (daemon log: \(daemon.logPath))") }
    }

    /// The key written from this process, as a settings app writes it.
    static func writesInProcess(_ c: BenchContext, _ connection: DaemonConnection, runs: Int, timeouts: inout Int) throws -> [Double] {
        guard let source = g_settings_schema_source_get_default(),
              let schema = g_settings_schema_source_lookup(source, "org.gnome.desktop.notifications", 1) else {
            throw BenchError("the schema org.gnome.desktop.notifications is not installed (gsettings-desktop-schemas)")
        }
        g_settings_schema_unref(schema)
        let settings = g_settings_new("org.gnome.desktop.notifications")
        defer {
            g_settings_reset(settings, "show-banners")
            g_settings_sync()
            g_object_unref(settings)
        }
        var applied: [Double] = []
        for i in 0..<runs {
            let dnd = i % 2 == 0
            let t0 = Clock.now()
            g_settings_set_boolean(settings, "show-banners", dnd ? 0 : 1)
            var seen = false
            while !seen && Clock.now() - t0 < 2_000_000_000 {
                guard case .ok(let fields, _) = try connection.send(.status) else { throw BenchError("status was refused") }
                seen = fields["do-not-disturb"] == (dnd ? "on" : "off")
            }
            if seen { applied.append(Double(Clock.now() - t0) / 1e6) } else { timeouts += 1 }
            g_settings_sync()
            Clock.sleep(seconds: 0.02)
        }
        return applied
    }
}
