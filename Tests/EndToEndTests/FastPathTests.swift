import Foundation
import SysoundTestSupport
import XCTest

/// `sysound play NAME` with a daemon up is answered by `sysound` itself;
/// without a daemon `sysound` becomes the embedded engine (`sysound-play`),
/// every other command `sysound-cli`, both with execv. These tests point
/// SYSOUND_CLI (or SYSOUND_PLAY) at a missing file, so that any hand-over
/// shows as exit 70 "cannot start".
final class FastPathTests: DaemonTestCase {
    var stateDir: String { daemon.stateDir }
    let missingCLI = "/nonexistent/sysound-cli"

    /// Runs `sysound ARGS` through env(1): the state-directory variables
    /// unset unless `environment` sets them, SYSOUND_CLI as given.
    func sysound(_ arguments: [String], environment: [String: String] = [:], binary: String? = nil) throws -> Spawned.Result {
        var env = ["-u", "SYSOUND_STATE_DIR", "-u", "XDG_RUNTIME_DIR", "-u", "SYSOUND_CLI", "-u", "SYSOUND_PLAY"]
        env += environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try Spawned.run("/usr/bin/env", env + [try binary ?? TestPaths.sysound] + arguments)
    }

    var fullCLI: String {
        get throws { try TestPaths.executable("sysound-cli") }
    }

    func testPlayByNameWithADaemonUpNeedsNoFullCLI() throws {
        let recording = try MonitorRecording()
        let result = try sysound(["play", "tap", "--state-dir", stateDir], environment: ["SYSOUND_CLI": missingCLI])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout + result.stderr, "")
        XCTAssertGreaterThan(Signal.peak(try recording.samples(secondsFromNow: 0.5)), 0.05, "the tap did not reach the sink")
    }

    func testPlayAsAnAppNeedsNoFullCLIEither() throws {
        let result = try sysound(["play", "tap", "--app", "org.example.Fast", "--state-dir", stateDir], environment: ["SYSOUND_CLI": missingCLI])
        XCTAssertEqual(result.status, 0, result.stderr)
        let status = try sysound(["status", "--state-dir", stateDir], binary: try fullCLI)
        XCTAssertTrue(status.stdout.contains("org.example.Fast:1"), "the daemon did not see the app: \(status.stdout)")
    }

    func testEveryOtherShapeIsHandedToTheFullCLI() throws {
        for arguments in [["play", "tap", "--verbose"], ["play", "--file", "/dev/null"], ["status"], ["--help"], [],
                          ["play", "tap", "--app", "bad\u{7}id"], ["play", "tap", "--app", "a", "--app", "b"]] {
            let result = try sysound(arguments + ["--state-dir", stateDir], environment: ["SYSOUND_CLI": missingCLI])
            XCTAssertEqual(result.status, 70, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr, "sysound: cannot start \(missingCLI): No such file or directory\n", "\(arguments)")
        }
    }

    /// Without a daemon the fast path's shape goes straight to the embedded
    /// engine, not through the full CLI (which would start the engine once
    /// more), and plays there with the CLI's messages and exit statuses.
    func testWithoutADaemonPlayIsHandedToTheEngineNotTheFullCLI() throws {
        let empty = stateDir + "-none"
        let missingPlayer = "/nonexistent/sysound-play"
        let handed = try sysound(["play", "tap", "--state-dir", empty], environment: ["SYSOUND_PLAY": missingPlayer])
        XCTAssertEqual(handed.status, 70, handed.stderr)
        XCTAssertEqual(handed.stderr, "sysound: cannot start \(missingPlayer): No such file or directory\n")

        let recording = try MonitorRecording()
        let played = try sysound(["play", "tap", "--app", "org.example.Embedded", "--state-dir", empty], environment: ["SYSOUND_CLI": missingCLI])
        XCTAssertEqual(played.status, 0, played.stderr)
        XCTAssertEqual(played.stdout + played.stderr, "")
        // Heard whole: the process waits for the tail the server still holds
        // (`waitUntilIdle`), so its last quarter is as loud as the file's.
        let heard = try recording.samples(secondsFromNow: 0.5)
        XCTAssertGreaterThan(Signal.peak(heard), 0.05, "the tap did not reach the sink")
        let source = try readSamples(TestPaths.packageRoot + "/Sounds/tap.wav").samples
        let onset = try XCTUnwrap(Signal.onset(heard, threshold: 1e-3)), sourceStart = try XCTUnwrap(Signal.onset(source, threshold: 1e-3))
        let length = source.count - sourceStart
        // Aligned on the clip by correlation, not by the threshold alone:
        // OpenAL Soft fades a starting voice in over its first samples, so the
        // threshold was crossed 2–31 samples late in some runs, and a body
        // taken from there is the decaying clip shifted, with a quieter last
        // quarter (0.72–0.79, 3 of 10 runs, before and after the drain).
        let window = 480
        let start = (-192...192).filter { onset + $0 >= 0 && onset + $0 + window <= heard.count }.max { a, b in
            Signal.correlation(heard[(onset + a)..<(onset + a + window)], source[sourceStart..<(sourceStart + window)])
                < Signal.correlation(heard[(onset + b)..<(onset + b + window)], source[sourceStart..<(sourceStart + window)])
        }.map { onset + $0 } ?? onset
        let body = heard[start...].prefix(length), original = source[sourceStart...]
        XCTAssertEqual(body.count, length)
        func energy(_ x: ArraySlice<Float>) -> Double { x.reduce(0) { $0 + Double($1 * $1) } }
        let tailRatio = energy(body.suffix(length / 4)) / energy(body) / (energy(original.suffix(length / 4)) / energy(original))
        XCTAssertGreaterThan(tailRatio, 0.8, "the tap's tail was cut: the process closed its stream before it was heard")

        let unknown = try sysound(["play", "no-such-sound", "--state-dir", empty], environment: ["SYSOUND_CLI": missingCLI])
        let viaCLI = try sysound(["play", "no-such-sound", "--state-dir", empty, "--embedded"], binary: try fullCLI)
        XCTAssertEqual(unknown.status, 65, unknown.stderr)
        XCTAssertEqual(unknown.status, viaCLI.status)
        XCTAssertEqual(unknown.stderr, viaCLI.stderr, "the engine speaks as the full CLI does")
    }

    /// The fast path reads the environment with getenv, the full CLI from a dictionary: both must find the same daemon.
    func testTheStateDirectoryComesFromTheEnvironmentAsForTheFullCLI() throws {
        let runtime = stateDir + "-runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        try FileManager.default.createSymbolicLink(atPath: runtime + "/sysound", withDestinationPath: stateDir)
        for environment in [["SYSOUND_STATE_DIR": stateDir], ["XDG_RUNTIME_DIR": runtime],
                            ["SYSOUND_STATE_DIR": stateDir, "XDG_RUNTIME_DIR": "/nonexistent"]] {
            let fast = try sysound(["play", "tap"], environment: environment.merging(["SYSOUND_CLI": missingCLI]) { a, _ in a })
            XCTAssertEqual(fast.status, 0, "\(environment): \(fast.stderr)")
            let status = try sysound(["status", "--json"], environment: environment)
            XCTAssertTrue(status.stdout.contains("\"daemon\": \"running\""), "\(environment): \(status.stdout)")
        }
    }

    /// A daemon that answers late (stopped, swapped out) is not asked twice:
    /// the CLI times out with 75 and says the request was sent; the daemon,
    /// continued, plays the tap once.
    func testAStoppedDaemonPlaysTheTapExactlyOnceAndTheCLISaysWhatHappened() throws {
        // Stopped while its stream runs, the daemon's output underruns and
        // PulseAudio drops what OpenAL Soft mixes right after the resume (its
        // backlog lands in the past); an idle daemon has corked its stream
        // (idle_pause_ms, 1 s) and a resumed play starts fresh.
        usleep(1_500_000)
        let recording = try MonitorRecording()
        daemon.signal(SIGSTOP)
        var continued = false
        defer { if !continued { daemon.signal(SIGCONT) } }
        // SYSOUND_CLI names the real full CLI: a hand-over would send the request again.
        let result = try sysound(["play", "tap", "--state-dir", stateDir], environment: ["SYSOUND_CLI": try fullCLI])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("sysound: cannot play tap: the daemon at \(daemon.socketPath) did not answer in time"), result.stderr)
        XCTAssertTrue(result.stderr.contains("not sent again"), result.stderr)
        daemon.signal(SIGCONT)
        continued = true
        let samples = try recording.samples(atLeast: 7.5, timeout: 20)
        XCTAssertEqual(Self.bursts(in: samples, threshold: 0.05), 1, "the tap should play exactly once (peak \(Signal.peak(samples)))")
    }

    /// Separate sounds in a recording: runs above `threshold` more than 150 ms apart.
    static func bursts(in samples: [Float], threshold: Float) -> Int {
        var count = 0, last = -Int.max / 2
        for (i, sample) in samples.enumerated() where abs(sample) > threshold {
            if i - last > 7_200 { count += 1 }
            last = i
        }
        return count
    }

    func testAnErrorReplyGivesTheFullCLIsMessageAndExitCode() throws {
        let fast = try sysound(["play", "no-such-sound", "--state-dir", stateDir], environment: ["SYSOUND_CLI": missingCLI])
        let full = try sysound(["play", "no-such-sound", "--state-dir", stateDir], binary: try fullCLI)
        XCTAssertEqual(fast.status, 65, fast.stderr)
        XCTAssertEqual(fast.status, full.status)
        XCTAssertEqual(fast.stderr, full.stderr)
        XCTAssertTrue(fast.stderr.hasPrefix("sysound: cannot play no-such-sound: "), fast.stderr)
    }
}
