import Foundation
import SysoundTestSupport
import XCTest

/// A reload changes nothing the user hears: recorded at the null sink, a
/// looping steady tone plays on through five reloads of a theme of more
/// than 40 MB of 16-bit PCM, each of which decodes and uploads it all again
/// (every file's mtime changes), and a tap sent during one is answered from
/// the old theme while the reload goes on. A dip is judged against a control
/// stream recorded in the same frames (`ControlTone`).
final class ReloadWhilePlayingTests: DaemonTestCase {
    /// 54 sounds of 4 s of 16-bit stereo at 48 kHz: 41.5 MB, plus the tone and the tap.
    static let bigSounds = 54

    private func makeBigTheme() throws -> String {
        let dir = daemon.root + "/big"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var index = "[sounds.tone]\nfile = \"tone.wav\"\ncategory = \"playback\"\nloopable = true\n"
        index += "[sounds.tap]\nfile = \"tap.wav\"\n"
        try FileManager.default.copyItem(atPath: TestPaths.packageRoot + "/Sounds/tap.wav", toPath: dir + "/tap.wav")
        // 440 whole periods in 1 s: the loop is seamless, so any dip in the recording is a gap.
        // Left only: a control stream plays on the right (`ControlTone`).
        try sox(["-n", "-r", "48000", "-c", "2", "-b", "16", dir + "/tone.wav", "synth", "1", "sine", "440", "vol", "0.5", "remix", "1", "0"])
        for i in 0..<Self.bigSounds {
            let file = "big-\(i).wav"
            try sox(["-n", "-r", "48000", "-c", "2", "-b", "16", dir + "/" + file, "synth", "4", "sine", "\(200 + 10 * i)", "vol", "0.3"])
            index += "[sounds.big-\(i)]\nfile = \"\(file)\"\n"
        }
        try index.write(toFile: dir + "/index.toml", atomically: true, encoding: .utf8)
        return dir
    }

    private func sox(_ arguments: [String]) throws {
        let result = try Spawned.run("/usr/bin/sox", arguments)
        guard result.status == 0 else { throw FixtureError("sox \(arguments.joined(separator: " ")): \(result.stderr)") }
    }

    /// Every file of the theme gets a new mtime: a reload must decode and upload it all again.
    private func touch(_ dir: String) throws {
        for file in try FileManager.default.contentsOfDirectory(atPath: dir) where file.hasSuffix(".wav") && file != "tone.wav" {
            try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: dir + "/" + file)
        }
    }

    private func reloads() -> Int { daemon.log().components(separatedBy: "reloaded configuration and theme").count - 1 }

    func testALoopingToneSurvivesFiveBigReloadsWithoutAGap() throws {
        daemon.stop()
        daemon = try DaemonProcess(start: false)
        let theme = try makeBigTheme()
        let bytes = try FileManager.default.contentsOfDirectory(atPath: theme).reduce(0) {
            $0 + ((try FileManager.default.attributesOfItem(atPath: theme + "/" + $1)[.size] as? Int) ?? 0)
        }
        XCTAssertGreaterThan(bytes, 40_000_000, "a theme of at least 40 MB")
        let config = daemon.root + "/reload.toml"
        try "[theme]\npaths = [\"\(theme)\"]\n[audio]\nmax_preload_bytes = 536870912\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon = try DaemonProcess(arguments: ["--config", config])
        let cli = daemon.cli

        let control = try ControlTone()
        defer { control.stop() }
        let loop = try cli.run(["play", "tone", "--loop"])
        XCTAssertEqual(loop.status, 0, loop.stderr)
        let recording = try MonitorRecording()
        usleep(300_000)
        for round in 1...5 {
            try touch(theme)
            daemon.signal(SIGHUP)
            if round == 1 {
                // While the first reload decodes 41 MB, a tap is answered from the old theme.
                usleep(20_000)
                let tap = try cli.run(["play", "tap"])
                XCTAssertEqual(tap.status, 0, tap.stderr)
                XCTAssertEqual(reloads(), 0, "the tap was answered while the reload went on")
            }
            XCTAssertTrue(eventually(60) { self.reloads() == round }, "reload \(round) finished: \(daemon.log(tail: 10))")
        }
        usleep(300_000)
        let (recorded, right) = try recording.stereo(secondsFromNow: 0.2)
        // Whether the server ran out of the daemon's audio: a dip without one is not a late write of sysound's.
        let underflows = "audio-underflows: " + (cli.status()["audio-underflows"] ?? "none")
        XCTAssertEqual(try cli.run(["stop"]).status, 0)

        // From 0.1 s after the mark (the tone was already playing), every 2 ms
        // window holds the tone where the control's held.
        let seconds = { (frames: [Int]) in frames.map { Double($0) / 48_000 } }
        let dips = ControlTone.dips(recorded, from: 4_800), controlDips = ControlTone.dips(right, from: 4_800)
        let windows = (recorded.count - 4_800) / 96
        print("the tone dipped at \(seconds(dips)) s, the control at \(seconds(controlDips)) s, of \(windows) windows; \(underflows)")
        XCTAssertLessThan(controlDips.count, windows / 4, "the control's tone held in most windows (else there is nothing to judge against)")
        XCTAssertEqual(seconds(ControlTone.own(dips, control: right)), [], "the tone dipped below −26 dBFS where the control did not (seconds after the mark); \(underflows)")
        XCTAssertGreaterThan(Double(recorded.count) / 48_000, 1.0)
        XCTAssertTrue(daemon.isRunning, "the daemon is up (no SIGXCPU): \(daemon.log(tail: 20))")
        XCTAssertFalse(daemon.log().contains("SIGXCPU") || daemon.log().contains("CPU time limit"), daemon.log(tail: 20))
    }

    /// At start the theme loads on a worker: the daemon answers (and plays)
    /// before a 41 MB theme is loaded, and loads all of it.
    func testTheDaemonServesWhileABigThemeLoads() throws {
        daemon.stop()
        daemon = try DaemonProcess(start: false)
        let theme = try makeBigTheme()
        let config = daemon.root + "/big.toml"
        try "[theme]\npaths = [\"\(theme)\"]\n[audio]\nmax_preload_bytes = 536870912\n".write(toFile: config, atomically: true, encoding: .utf8)
        daemon = try DaemonProcess(arguments: ["--config", config])
        var tap: Spawned.Result?
        let peak = try Pulse.peak(0.5) { tap = try daemon.cli.run(["play", "tap"]) }
        XCTAssertEqual(tap?.status, 0, tap?.stderr ?? "")
        XCTAssertGreaterThan(peak, 0.05, "and heard")
        XCTAssertTrue(eventually(60) { self.daemon.log().contains("preloaded \(Self.bigSounds + 2) sounds, 0 failed") }, daemon.log(tail: 10))
        // The daemon said it serves before the theme's load ended (a load on
        // the start's path would come first): what the log's order shows,
        // however fast this machine loads.
        let log = daemon.log()
        let serving = try XCTUnwrap(log.range(of: "serving "), log), loaded = try XCTUnwrap(log.range(of: "preloaded "), log)
        XCTAssertLessThan(serving.lowerBound, loaded.lowerBound, "serving before the theme was loaded: \(log)")
    }
}
