import Foundation
import SysoundTestSupport
import XCTest

/// The daemon started by systemd's socket activation (LISTEN_FDS), as the
/// units in config/ set it up: the first request starts it and is answered.
final class SocketActivationTests: XCTestCase {
    func testFirstRequestStartsTheDaemonOnThePassedSocket() throws {
        let cli = try CLI()
        addTeardownBlock { cli.cleanUp() }
        _ = try activate(cli)

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

    /// The first sound of a session waits for nothing it does not need: the
    /// request that started the daemon is answered before the theme's load
    /// and the D-Bus face start (the order of the daemon's own log, one
    /// thread's).
    func testTheRequestThatStartedTheDaemonIsAnsweredBeforeTheThemeLoadsAndTheDBusFaceStarts() throws {
        let cli = try CLI()
        addTeardownBlock { cli.cleanUp() }
        let log = cli.stateDir + "/daemon.log"
        // The daemon logs each request at trace level; the activator passes the variable on (-E).
        setenv("SYSOUND_LOG_LEVEL", "trace", 1)
        defer { unsetenv("SYSOUND_LOG_LEVEL") }
        _ = try activate(cli, passing: ["SYSOUND_LOG_LEVEL"], log: log)

        let result = try cli.run(["play", "tap", "--verbose"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("via the daemon"), result.stdout)
        // The activator's environment has no session bus: the D-Bus face says so when it starts.
        let started = eventually(30) {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.contains("preloaded ") && text.contains("sysound.dbus:")
        }
        let text = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(started, "the theme's load or the D-Bus face never started:\n\(text)")
        let request = try XCTUnwrap(text.range(of: "request from ")?.lowerBound, "no request logged:\n\(text)")
        for later in ["sysound.dbus:", "preloaded "] {
            let line = try XCTUnwrap(text.range(of: later)?.lowerBound)
            XCTAssertLessThan(request, line, "\(later) came before the first request was answered:\n\(text)")
        }
    }

    /// The unit's `sysound serve` becomes the engine's daemon itself: the
    /// full CLI, which only handed it on, is not started on the way (here it
    /// is missing, and the first request is still answered).
    func testServeStartsTheEngineWithoutTheFullCLI() throws {
        let cli = try CLI()
        addTeardownBlock { cli.cleanUp() }
        setenv("SYSOUND_CLI", cli.stateDir + "/no-such-sysound-cli", 1)
        defer { unsetenv("SYSOUND_CLI") }
        let process = try activate(cli, passing: ["SYSOUND_CLI"])
        // `play NAME` is the launcher's own fast path: it needs no full CLI either.
        // (Without a daemon it would play embedded: the daemon is asked for by its lock and its process.)
        let result = try cli.run(["play", "tap"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(process.isRunning, "the activated `sysound serve` exited")
        XCTAssertTrue(FileManager.default.fileExists(atPath: cli.stateDir + "/daemon.lock"), "no daemon took the state directory")
    }

    /// A muted user's first sound after login is silent: the daemon read the
    /// control files before it answered the request that started it.
    func testTheRequestThatStartedTheDaemonFollowsSilentMode() throws {
        let cli = try CLI()
        addTeardownBlock { cli.cleanUp() }
        try "1\n".write(toFile: cli.stateDir + "/silent", atomically: true, encoding: .utf8)
        _ = try activate(cli)
        let recording = try MonitorRecording()
        let result = try cli.run(["play", "tap", "--verbose"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("via the daemon"), result.stdout)
        XCTAssertTrue(result.stdout.contains("silent mode"), "the reply does not say silent mode kept it quiet: \(result.stdout)")
        XCTAssertLessThan(Signal.peak(try recording.samples(secondsFromNow: 0.5)), 0.01, "the first sound played in silent mode")
    }

    /// systemd's own activator listening on the state directory's socket for
    /// `sysound serve`, which it starts at the first connection; it clears
    /// the environment but for what -E passes on: the fixture's sound server and `passing`.
    /// Stopped when the test ends, before its state directory goes (teardown blocks run last first).
    private func activate(_ cli: CLI, passing: [String] = [], log: String? = nil) throws -> Spawned {
        try Pulse.require()
        let activator = "/usr/bin/systemd-socket-activate"
        guard FileManager.default.isExecutableFile(atPath: activator) else {
            throw FixtureError("systemd-socket-activate is missing; make test installs systemd")
        }
        let socket = cli.stateDir + "/socket"
        let passed = (["PULSE_SERVER", "PULSE_RUNTIME_PATH", "PULSE_CLIENTCONFIG", "ALSOFT_DRIVERS"] + passing).flatMap { ["-E", $0] }
        let process = try Spawned(activator, ["--seqpacket", "-l", socket] + passed + [
            try TestPaths.sysound, "serve", "--state-dir", cli.stateDir, "--input-dir", cli.stateDir + "/no-input",
        ], output: log.map { .append(to: $0) } ?? .capture)
        addTeardownBlock {
            process.signal(SIGTERM)
            process.wait()
        }
        XCTAssertTrue(eventually(5) { FileManager.default.fileExists(atPath: socket) }, "\(activator) did not listen on \(socket)")
        return process
    }
}
