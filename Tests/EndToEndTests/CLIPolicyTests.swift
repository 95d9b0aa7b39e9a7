import Foundation
import SysoundTestSupport
import XCTest

/// The real CLI on the real PulseAudio fixture: what the user's settings let
/// through reaches the sink, and what they silence does not.
final class CLIPolicyTests: XCTestCase {
    var cli: CLI!

    override func setUpWithError() throws {
        try Pulse.require()  // here, not only in recordedPeak: a skip thrown inside an XCTAssert counts as a failure
        cli = try CLI()
    }
    override func tearDown() { cli?.cleanUp() }

    /// Plays with the CLI and returns the recording's peak over the clip's time.
    func recordedPeak(_ arguments: [String], seconds: Double = 0.6) throws -> (peak: Float, result: Spawned.Result) {
        var result: Spawned.Result?
        let peak = try Pulse.peak(seconds) { result = try cli.run(arguments) }
        return (peak, result!)
    }

    func testTapIsHeard() throws {
        let (peak, result) = try recordedPeak(["play", "tap"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThan(peak, 0.05, "tap did not reach the sink")
    }

    func testSilentModeSilencesTapButNotAnAlarmTheUserSet() throws {
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        let (tapPeak, tap) = try recordedPeak(["play", "tap", "--verbose"])
        XCTAssertEqual(tap.status, 0, "a silenced sound is not an error: \(tap.stderr)")
        XCTAssertTrue(tap.stdout.contains("(silent)"), tap.stdout)
        XCTAssertLessThan(tapPeak, 1e-4, "tap was heard in silent mode")

        let (alarmPeak, alarm) = try recordedPeak(["play", "alarm", "--category", "playback"], seconds: 1.2)
        XCTAssertEqual(alarm.status, 0, alarm.stderr)
        XCTAssertGreaterThan(alarmPeak, 0.05, "the alarm the user set was silenced by silent mode")
    }

    func testLockSilencesAmbientButNotAlerts() throws {
        XCTAssertEqual(try cli.run(["lock", "on"]).status, 0)
        XCTAssertLessThan(try recordedPeak(["play", "tap"]).peak, 1e-4, "tap was heard on the lock screen")
        XCTAssertGreaterThan(try recordedPeak(["play", "notification"]).peak, 0.05, "an alert was silenced by the lock")
    }

    func testVolumeZeroMutesEvenPlayback() throws {
        XCTAssertEqual(try cli.run(["volume", "0"]).status, 0)
        XCTAssertLessThan(try recordedPeak(["play", "alarm", "--category", "playback"], seconds: 1.2).peak, 1e-4)
    }

    func testHalfVolumeHalvesTheLevel() throws {
        // The level of each volume is the loudest of three plays: an underrun
        // (docs/latency.md: a busy machine, or the resume
        // after the idle pause) can cut one play's attack and lower its peak by
        // several per cent.
        func level() throws -> Float { try (0..<3).map { _ in try recordedPeak(["play", "tap"]).peak }.max()! }
        let full = try level()
        XCTAssertEqual(try cli.run(["volume", "0.5"]).status, 0)
        let half = try level()
        XCTAssertEqual(Double(half / full), 0.5, accuracy: 0.03)
    }
}

/// `--to FILE` renders the exact mix through the loopback device.
final class CLIRenderTests: XCTestCase {
    func testRenderedTapMatchesTheSourceClip() throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let out = cli.stateDir + "/tap.wav"
        let result = try cli.run(["play", "tap", "--to", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rendered = try readSamples(out)
        let source = try readSamples(TestPaths.packageRoot + "/Sounds/tap.wav")
        XCTAssertEqual(rendered.rate, 48_000)
        XCTAssertEqual(source.channels, 1)
        let left = stride(from: 0, to: rendered.samples.count, by: rendered.channels).map { rendered.samples[$0] }
        let start = try XCTUnwrap(Signal.onset(left, threshold: 1e-3))
        let sourceStart = try XCTUnwrap(Signal.onset(source.samples, threshold: 1e-3))
        let body = left[start...].prefix(source.samples.count - sourceStart)
        let correlation = Signal.correlation(body, source.samples[sourceStart...])
        XCTAssertGreaterThanOrEqual(correlation, 0.99, "rendered tap is not the source clip")
        // The level is the source's times the mono-to-stereo panning gain, the same for every sound.
        let ratio = Double(Signal.peak(body)) / Double(Signal.peak(source.samples))
        XCTAssertGreaterThan(ratio, 0.45)
        XCTAssertLessThanOrEqual(ratio, 1.01)
    }

    func testUnknownSoundExitsWithItsCodeAndNamesIt() throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let result = try cli.run(["play", "no-such-sound"])
        XCTAssertEqual(result.status, 65)
        XCTAssertTrue(result.stderr.contains("no-such-sound"), result.stderr)
    }

    /// Without a daemon the sound would loop in a one-shot process that
    /// `sysound stop` cannot reach: refused at once, saying how to start one.
    func testALoopWithoutADaemonIsRefusedWithTheWayToStartOne() throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let result = try cli.run(["play", "alarm", "--loop"], timeout: 10)
        XCTAssertFalse(result.timedOut, "the loop played on in the CLI's own process")
        XCTAssertEqual(result.status, 69, "EX_UNAVAILABLE, as for a daemon that is needed and absent: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("alarm"), result.stderr)
        XCTAssertTrue(result.stderr.contains("systemctl --user start sysound"), result.stderr)
        XCTAssertTrue(result.stderr.contains("sysound serve"), result.stderr)
        // Asking for the embedded engine by name is a usage error of its own.
        let embedded = try cli.run(["play", "alarm", "--loop", "--embedded"], timeout: 10)
        XCTAssertEqual(embedded.status, 64, embedded.stderr)
        XCTAssertTrue(embedded.stderr.contains("--embedded"), embedded.stderr)
        // A sound played once still plays on the embedded engine.
        XCTAssertEqual(try cli.run(["play", "tap"]).status, 0)
    }

    func testBadArgumentsExit64() throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        for arguments in [["play", "tap", "--gain", "2"], ["play", "tap", "--category", "loud"], ["volume", "loud"],
                          ["vibrate", "--pattern", "1:0"], ["silent", "maybe"]] {
            let result = try cli.run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.isEmpty, "\(arguments) gave no message")
        }
    }
}
