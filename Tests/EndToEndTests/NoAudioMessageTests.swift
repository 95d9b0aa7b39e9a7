import Foundation
import SysoundTestSupport
import XCTest

/// `make run` (`sysound play tap --verbose`) on a machine without audio: a
/// fresh container as root, no session, no sound server. Simulated with an
/// environment that holds only what such a shell has, an empty runtime
/// directory and PULSE_SERVER naming a socket nobody listens at, and OpenAL
/// Soft free to try ALSA (no ALSOFT_DRIVERS) — which on a machine without a
/// sound card prints "ALSA lib …" lines and OpenAL Soft's "(EE)" unless
/// sysound silences them. What the user reads is sysound's one message,
/// naming what it tried and what to do, and exit 69 (the Makefile's hint
/// follows it).
final class NoAudioMessageTests: XCTestCase {
    func testMakeRunWithoutAudioPrintsOnlySysoundsMessage() throws {
        let root = NSTemporaryDirectory() + "sysound-noaudio-\(UUID().uuidString)"
        for dir in ["runtime", "home", "config", "state"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        let nowhere = root + "/runtime/pulse/native"
        let environment = [
            "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=\(root)/home", "XDG_CONFIG_HOME=\(root)/config",
            "XDG_RUNTIME_DIR=\(root)/runtime", "PULSE_SERVER=unix:\(nowhere)", "LANG=C.UTF-8",
        ]
        let result = try Spawned.run("/usr/bin/env", ["-i"] + environment + [
            try TestPaths.sysound, "play", "tap", "--verbose", "--state-dir", root + "/state",
        ], timeout: 30)
        XCTAssertFalse(result.timedOut)
        XCTAssertEqual(result.status, 69, "EX_UNAVAILABLE: no output. stderr: \(result.stderr)")
        XCTAssertEqual(result.stdout, "", "nothing on standard output")
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(lines.count, 1, "one line, sysound's own; got:\n\(result.stderr)")
        let message = String(lines.first ?? "")
        let alsa = access("/dev/snd", F_OK) == 0 ? "no playback device it could open" : "no sound card (there is no /dev/snd)"
        XCTAssertEqual(message, "sysound: cannot play tap: no audio output device could be opened "
            + "(tried the sound server: none listens at \(nowhere); tried ALSA: \(alsa)); "
            + "connect or enable a sound device, start PulseAudio/PipeWire, or render to a file with --to FILE")
    }
}
