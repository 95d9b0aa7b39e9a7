import Foundation
import SysoundTestSupport
import XCTest

/// The daemon started by systemd's socket activation (LISTEN_FDS), as the
/// units in config/ set it up: the first request starts it and is answered.
final class SocketActivationTests: XCTestCase {
    func testFirstRequestStartsTheDaemonOnThePassedSocket() throws {
        try Pulse.require()
        let activator = "/usr/bin/systemd-socket-activate"
        guard FileManager.default.isExecutableFile(atPath: activator) else {
            throw FixtureError("systemd-socket-activate is missing; make test installs systemd")
        }
        let cli = try CLI()
        defer { cli.cleanUp() }
        let socket = cli.stateDir + "/socket"
        // The activator clears the environment but for what -E passes on: the fixture's sound server.
        let passed = ["PULSE_SERVER", "PULSE_RUNTIME_PATH", "PULSE_CLIENTCONFIG", "ALSOFT_DRIVERS"].flatMap { ["-E", $0] }
        let process = try Spawned(activator, ["--seqpacket", "-l", socket] + passed + [
            try TestPaths.sysound, "serve", "--state-dir", cli.stateDir, "--input-dir", cli.stateDir + "/no-input"])
        defer {
            process.signal(SIGTERM)
            process.wait()
        }
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { usleep(10_000) }

        let recording = try MonitorRecording()
        let result = try cli.run(["play", "tap", "--verbose"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("via the daemon"), "the request did not reach an activated daemon: \(result.stdout)")
        // The daemon starts on this request (slowly in sanitizer builds): listen
        // for as long as that took, and half a second more.
        XCTAssertGreaterThan(Signal.peak(try recording.samples(secondsFromNow: 0.5)), 0.05)
        let status = try cli.run(["status", "--json"])
        XCTAssertTrue(status.stdout.contains("\"daemon\": \"running\""), status.stdout)
    }
}
