import Glibc

/// A private session bus of the figure's own (Tests/fixture/dbus-ctl.sh in
/// `directory`), whatever buses the fixture has: the daemons measured on it
/// are alone there. Stopped by `stop` (by PID, as the fixture does).
final class PrivateSessionBus {
    let address: String
    /// The environment a child started on this bus is given.
    let environment: [String: String]
    private let ctl: String

    init(_ c: BenchContext, directory: String) throws {
        mkdir(directory, 0o700)
        var env = currentEnvironment()
        env["SYSOUND_DBUS_DIR"] = directory
        environment = env
        ctl = c.root + "/Tests/fixture/dbus-ctl.sh"
        address = "unix:path=\(directory)/session.sock"
        guard Children.wait(try Children.spawn(ctl, ["start", "session"], environment: env)) == 0 else {
            throw BenchError("\(ctl) start session failed")
        }
    }

    func stop() { _ = Children.wait((try? Children.spawn(ctl, ["stop", "session"], environment: environment)) ?? -1) }
}
