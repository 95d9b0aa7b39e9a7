import CSystemd
import Foundation
import SysoundPlatform
import SysoundTestSupport
import XCTest

/// An event loop of the test's own, run in small steps from the test thread
/// (`sd_event_run` on its sd_event*) instead of on a thread of its own.
final class TestLoop {
    let loop: EventLoop

    init() {
        do { loop = try EventLoop() } catch { preconditionFailure("EventLoop: \(error)") }
    }

    /// Runs the loop until `condition` holds; false after `timeout` seconds.
    @discardableResult
    func run(until condition: () -> Bool, timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            _ = sd_event_run(loop.event, 20_000)
        }
        return true
    }

    /// Runs a command to its end while the loop keeps serving; returns its exit status and output.
    func run(_ command: [String], timeout: Double = 10) throws -> (status: Int32, output: String, error: String) {
        // dbus-ctl.sh leaves a bus daemon behind holding what it inherited: discard its output.
        let detaches = command.first?.hasSuffix("dbus-ctl.sh") == true
        let child = try Spawned("/usr/bin/env", command, output: detaches ? .discard : .capture)
        let ended = run(until: { !child.isRunning }, timeout: timeout)
        let status = child.wait(timeout: ended ? nil : 0, then: SIGKILL)
        return (ended ? status : -1, detaches ? "" : child.stdout, detaches ? "" : child.stderr)
    }
}

/// The private session bus of Tests/fixture/with-dbus.sh, or a skip.
func requirePrivateBus() throws {
    guard let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"],
        ProcessInfo.processInfo.environment["SYSOUND_DBUS_DIR"] != nil
    else {
        if ProcessInfo.processInfo.environment["SYSOUND_REQUIRE_DBUS"] == "1" {
            XCTFail("SYSOUND_REQUIRE_DBUS=1 but no private bus: run under Tests/fixture/with-dbus.sh")
        }
        throw XCTSkip("needs the private buses of Tests/fixture/with-dbus.sh")
    }
    _ = address
}
