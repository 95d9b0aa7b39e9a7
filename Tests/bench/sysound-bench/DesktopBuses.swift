import Glibc

/// A system and a session bus, as every desktop has them, for daemons that
/// would otherwise find none: the PulseAudio fixture runs without the private
/// buses of Tests/fixture/with-dbus.sh (the PipeWire one runs under it), and
/// a daemon with no system bus retries it every few seconds — a wake-up no
/// desktop has (figure 15). Private dbus-daemons (Tests/fixture/dbus-ctl.sh)
/// in `directory`; the environment children inherit points at them until
/// `stop`, which restores it. Buses already there are left as they are.
final class DesktopBuses {
    private let fixture: String
    private var started: [String] = []
    private var saved: [(String, String?)] = []

    init(_ c: BenchContext, directory: String) throws {
        fixture = c.root + "/Tests/fixture/dbus-ctl.sh"
        let missing = [("system", "DBUS_SYSTEM_BUS_ADDRESS"), ("session", "DBUS_SESSION_BUS_ADDRESS")]
            .filter { getenv($0.1) == nil }
        guard !missing.isEmpty else { return }
        mkdir(directory, 0o700)
        for name in ["SYSOUND_DBUS_DIR"] + missing.map(\.1) {
            saved.append((name, getenv(name).map { String(cString: $0) }))
        }
        setenv("SYSOUND_DBUS_DIR", directory, 1)
        do {
            for (bus, variable) in missing {
                setenv(variable, "unix:path=\(directory)/\(bus).sock", 1)
                try LockedHintFigure.script(fixture, ["start", bus])
                started.append(bus)
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Which buses this started (none where the fixture had both).
    var names: [String] { started }

    func stop() {
        for bus in started.reversed() { try? LockedHintFigure.script(fixture, ["stop", bus]) }
        started = []
        for (name, value) in saved { if let value { setenv(name, value, 1) } else { unsetenv(name) } }
        saved = []
    }
}
