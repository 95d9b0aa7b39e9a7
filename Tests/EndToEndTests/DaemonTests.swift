import Foundation
import SysoundClient
import SysoundCore
import SysoundTestSupport
import XCTest

/// The real daemon, driven by the real CLI, on the PulseAudio fixture.
final class DaemonTests: DaemonTestCase {
    var cli: CLI { daemon.cli }

    func testPlayGoesThroughTheDaemonAndReachesTheSink() throws {
        var result: Spawned.Result!
        let p = try Pulse.peak(0.5) { result = try cli.run(["play", "tap", "--verbose"]) }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("via the daemon"), result.stdout)
        XCTAssertGreaterThan(p, 0.05)
    }

    /// `--app ID` carries the app to the daemon: its `[apps."ID"]` level applies
    /// and status lists it. A bad id is refused before anything is sent.
    func testPlayAsAnAppTakesThatAppsLevel() throws {
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try DaemonProcess(config: """
            [theme]
            paths = ["@SOUNDS@"]
            [apps."org.example.Quiet"]
            profile = "silent"
            """)
        var quiet: Spawned.Result!
        let quietPeak = try Pulse.peak(0.5) { quiet = try cli.run(["play", "tap", "--app", "org.example.Quiet", "--verbose"]) }
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertTrue(quiet.stdout.contains("not played"), quiet.stdout)
        XCTAssertLessThan(quietPeak, 1e-4, "the app's silent profile let tap through")
        var other: Spawned.Result!
        let otherPeak = try Pulse.peak(0.5) { other = try cli.run(["play", "tap", "--app", "org.example.Other"]) }
        XCTAssertEqual(other.status, 0, other.stderr)
        XCTAssertGreaterThan(otherPeak, 0.05, "an app without a level was silenced")
        let status = try cli.run(["status"]).stdout
        XCTAssertTrue(status.contains("org.example.Quiet"), status)
        let bad = try cli.run(["play", "tap", "--app", "bad\u{7}id"])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--app") && bad.stderr.contains("not an app id"), bad.stderr)
    }

    func testStatusAndListAsJSON() throws {
        let status = try cli.run(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["daemon"] as? String, "running")
        XCTAssertEqual(object?["audio"] as? String, "sysound-test")
        // Numbers as numbers, switches as booleans.
        XCTAssertEqual(object?["volume"] as? Double, 1, status.stdout)
        XCTAssertEqual(object?["voices"] as? Int, 32, status.stdout)
        XCTAssertNotNil(object?["playing"] as? Int, status.stdout)
        XCTAssertNotNil(object?["audio-underflows"] as? Int, status.stdout)
        XCTAssertEqual(object?["silent"] as? Bool, false, status.stdout)
        XCTAssertEqual(object?["haptics"] as? Bool, true, status.stdout)
        XCTAssertTrue(status.stdout.contains("\"silent\": false"), status.stdout)
        let list = try cli.run(["list", "--json"])
        let sounds = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: String]]
        XCTAssertTrue(sounds?.contains { $0["name"] == "tap" } ?? false, list.stdout)
        let presets = try JSONSerialization.jsonObject(with: Data(try cli.run(["list", "presets", "--json"]).stdout.utf8)) as? [[String: String]]
        XCTAssertTrue(presets?.contains { $0["name"] == "success" } ?? false)
    }

    /// A gap heard because the daemon did not write in time is counted in
    /// `status`: stopped for 300 ms while an alarm loops, the daemon lets the
    /// server run out of its audio, and the server says so when it runs again.
    func testAGapOfTheDaemonsIsCountedInStatus() throws {
        func underflows() -> Int? { cli.status()["audio-underflows"].flatMap { Int($0) } }
        XCTAssertEqual(try cli.run(["play", "alarm", "--loop"]).status, 0)
        usleep(200_000)
        let before = try XCTUnwrap(underflows(), "\(cli.status())")
        daemon.signal(SIGSTOP)
        usleep(300_000)
        daemon.signal(SIGCONT)
        XCTAssertTrue(eventually(3) { (underflows() ?? 0) > before }, "the gap was counted: \(cli.status())")
        XCTAssertEqual(try cli.run(["stop"]).status, 0)
    }

    func testSilentModeStopsAmbientNowAndKeepsPlayback() throws {
        // An ambient loop stops the moment silent mode turns on (the theatre case).
        XCTAssertEqual(try cli.run(["play", "ringtone", "--loop", "--category", "ambient"]).status, 0)
        XCTAssertGreaterThan(try Pulse.peak(0.3) {}, 0.05, "the ambient loop never started")
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        usleep(100_000)
        XCTAssertLessThan(try Pulse.peak(0.5) {}, 1e-4, "an ambient voice kept playing in silent mode")
        // A playback loop started before silent mode keeps going through it.
        XCTAssertEqual(try cli.run(["silent", "off"]).status, 0)
        XCTAssertEqual(try cli.run(["play", "alarm", "--loop"]).status, 0)  // playback by the theme
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        usleep(100_000)
        XCTAssertGreaterThan(try Pulse.peak(1.0) {}, 0.05, "playback stopped by silent mode")
        XCTAssertEqual(try cli.run(["stop"]).status, 0)
        usleep(100_000)
        XCTAssertLessThan(try Pulse.peak(0.3) {}, 1e-4, "stop left something playing")
    }

    func testInterruptionPausesPlaybackAndAResumableEndResumesIt() throws {
        XCTAssertEqual(try cli.run(["play", "alarm", "--loop"]).status, 0)
        XCTAssertEqual(try cli.run(["interrupt", "begin"]).status, 0)
        usleep(100_000)
        XCTAssertLessThan(try Pulse.peak(0.3) {}, 1e-4, "playback went on during the interruption")
        XCTAssertLessThan(try Pulse.peak(0.4) { try cli.run(["play", "tap"]) }, 1e-4, "a UI sound started during the interruption")
        XCTAssertEqual(try cli.run(["interrupt", "end", "--resumable"]).status, 0)
        XCTAssertGreaterThan(try Pulse.peak(1.0) {}, 0.05, "playback did not resume after a resumable end")
        XCTAssertEqual(try cli.run(["interrupt", "begin"]).status, 0)
        XCTAssertEqual(try cli.run(["interrupt", "end"]).status, 0)
        usleep(100_000)
        XCTAssertLessThan(try Pulse.peak(0.4) {}, 1e-4, "playback resumed after a non-resumable end")
    }

    func testASoundWhoseClientHungUpStillPlays() throws {
        let p = try Pulse.peak(0.6) { try daemon.sendAndHangUp("sysound/1 play alarm") }
        XCTAssertGreaterThan(p, 0.05)
    }

    func testSecondDaemonOnTheSameDirectoryRefusesNamingTheFirst() throws {
        let second = try cli.run(["serve"])
        XCTAssertNotEqual(second.status, 0)
        XCTAssertTrue(second.stderr.contains("PID \(daemon.pid)"), second.stderr)
    }

    func testSighupWithABrokenConfigKeepsServing() throws {
        daemon.stop()
        let config = NSTemporaryDirectory() + "sysound-hup-\(UUID().uuidString).toml"
        try FileManager.default.copyItem(atPath: TestPaths.packageRoot + "/config/sysound.toml", toPath: config)
        defer { try? FileManager.default.removeItem(atPath: config) }
        daemon = try DaemonProcess(arguments: ["--config", config])
        try "[audio]\nvoices = \"many\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        usleep(300_000)
        XCTAssertTrue(daemon.isRunning)
        XCTAssertTrue(daemon.log().contains("keeping the running one"), daemon.log())
        XCTAssertGreaterThan(try Pulse.peak(0.5) { XCTAssertEqual(try cli.run(["play", "tap"]).status, 0) }, 0.05)
        let status = try cli.run(["status", "--json"])
        XCTAssertTrue(status.stdout.contains("keeping the running one") && status.stdout.contains("audio.voices"), status.stdout)
    }

    /// A configuration broken at start: the daemon serves the built-in
    /// defaults (never exits, so systemd does not restart it into its start
    /// limit), says so in its log and in `status`, and a reload of the
    /// mended file clears it.
    func testABrokenConfigAtStartServesTheDefaultsAndSaysSo() throws {
        daemon.stop()
        daemon = try DaemonProcess(config: "[audio]\nvoices = \"many\"\n")
        let config = try XCTUnwrap(daemon.configPath)
        XCTAssertTrue(daemon.isRunning)
        XCTAssertTrue(daemon.log().contains("serving with the built-in defaults"), daemon.log())
        XCTAssertGreaterThan(try Pulse.peak(0.5) { XCTAssertEqual(try cli.run(["play", "tap"]).status, 0) }, 0.05)
        let broken = try cli.run(["status"])
        XCTAssertEqual(broken.status, 0, broken.stderr)
        let problem = broken.stdout.split(separator: "\n").first { $0.hasPrefix("config-error:") }.map(String.init) ?? ""
        XCTAssertTrue(problem.contains(config) && problem.contains("audio.voices"), broken.stdout)
        XCTAssertTrue(broken.stdout.contains("config:") && broken.stdout.contains("built-in defaults"), broken.stdout)

        try "[audio]\nvoices = 8\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let deadline = Date().addingTimeInterval(5)
        var mended = ""
        repeat {
            usleep(100_000)
            mended = try cli.run(["status"]).stdout
        } while mended.contains("config-error") && Date() < deadline
        XCTAssertFalse(mended.contains("config-error"), mended)
        XCTAssertTrue(mended.contains(config), mended)
    }

    func testSigtermRemovesTheSocket() throws {
        // terminate, not stop: stop removes the whole directory, socket or not.
        XCTAssertEqual(daemon.terminate(), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.socketPath))
        daemon.stop()
        daemon = try DaemonProcess()  // for tearDown
    }
}

/// `wait=1` is answered from the engine's end event: five of them at once
/// (more than the daemon's four workers) hold no worker, so a request that
/// needs one (a file's first play is decoded on a worker) is answered while
/// they all wait.
final class WaitWithoutWorkersTests: DaemonTestCase {
    func testFiveWaitsAtOnceLeaveTheWorkersFree() throws {
        let socket = daemon.socketPath
        let group = DispatchGroup()
        let answered = Locked<[Double]>([])
        let start = Date()
        for _ in 0..<5 {
            DispatchQueue.global().async(group: group) {
                let reply = try? DaemonClient(socketPath: socket, timeoutMilliseconds: 10_000)
                    .send(.play(PlayRequest(.name("ringtone"), category: .playback), wait: true))
                if reply?.isOK == true { answered.withLock { $0.append(Date().timeIntervalSince(start)) } }
            }
        }
        usleep(300_000)
        // Decoded on a worker: answered at once unless the waits hold them all.
        let file = try daemon.client.send(.play(PlayRequest(.file(TestPaths.packageRoot + "/Sounds/click.wav"))))
        let fileAt = Date().timeIntervalSince(start)
        XCTAssertTrue(file.isOK, "\(file)")
        XCTAssertLessThan(fileAt, 1.5, "a worker was free while five sounds were waited for")
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        let times = answered.withLock { $0 }
        XCTAssertEqual(times.count, 5, "every wait=1 was answered")
        XCTAssertTrue(times.allSatisfy { $0 >= 1.9 }, "each at its sound's end (2 s): \(times)")
    }
}
