import Foundation
#if canImport(XCTest)
import XCTest
#endif

/// The desktop session's services as python-dbusmock stand-ins on the
/// private buses of Tests/fixture/with-dbus.sh: `mock-ctl.sh` starts and
/// stops them by PID, `session-mock.py` shapes and drives them.
package enum SessionMock {
    package enum Service: String {
        case logind
        case gnomeScreensaver = "gnome-screensaver"
        case freedesktopScreensaver = "freedesktop-screensaver"
        /// rtkit (Tests/fixture/rtkit-mock.py), which really makes threads real-time.
        case rtkit
    }

    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    static var fixture: String { TestPaths.packageRoot + "/Tests/fixture" }

    /// Skips the test without the bus fixture, unless SYSOUND_REQUIRE_DBUS=1
    /// (CI), where that is a failure.
    package static func require() throws {
        guard environment["SYSOUND_DBUS_DIR"] != nil, environment["DBUS_SYSTEM_BUS_ADDRESS"] != nil else {
            let message = "no private buses; run under Tests/fixture/with-dbus.sh"
            if environment["SYSOUND_REQUIRE_DBUS"] == "1" { throw FixtureError("SYSOUND_REQUIRE_DBUS=1 but \(message)") }
            #if canImport(XCTest)
            throw XCTSkip(message)
            #else
            throw FixtureError(message)
            #endif
        }
    }

    package static func start(_ service: Service) throws { try run(fixture + "/mock-ctl.sh", ["start", service.rawValue]) }
    package static func stop(_ service: Service) throws { try run(fixture + "/mock-ctl.sh", ["stop", service.rawValue]) }

    /// Stops every mock (tearDown): whatever a test started must not outlive it.
    package static func stopAll() {
        for service in [Service.logind, .gnomeScreensaver, .freedesktopScreensaver, .rtkit] { try? stop(service) }
    }

    /// `session-mock.py ARGS`: add-session, display, locked, screensaver, …
    package static func perform(_ arguments: String...) throws {
        try run("/usr/bin/python3", [fixture + "/session-mock.py"] + arguments)
    }

    /// `$SYSOUND_DBUS_CTL start|stop system|session` (starting one that runs does nothing).
    package static func bus(_ verb: String, _ bus: String) throws {
        guard let ctl = environment["SYSOUND_DBUS_CTL"] else { throw FixtureError("SYSOUND_DBUS_CTL is not set") }
        try run(ctl, [verb, bus])
    }

    private static func run(_ path: String, _ arguments: [String]) throws {
        let result = try Spawned.run(path, arguments, timeout: 30)
        guard result.status == 0 else {
            throw FixtureError("\(([path] + arguments).joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
    }
}
