import Foundation
import SysoundCore
import SysoundTestSupport
import XCTest

/// Media roles (issues 26 and 27): a sound plays on a stream whose
/// `media.role` is its role, one stream per role in use, so the sound
/// server's role policies apply. The real daemon and CLI on the fixture's
/// server; what the server sees is read with `pactl list sink-inputs`.
final class MediaRoleTests: DaemonTestCase {
    var cli: CLI { daemon.cli }

    override func setUpWithError() throws {
        try super.setUpWithError()
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try DaemonProcess(config: Self.config())
    }

    /// The shipped theme, and a short idle pause so that a role's stream corks within a test.
    static func config(audio more: String = "") -> String {
        """
        [theme]
        paths = ["@SOUNDS@"]
        [audio]
        idle_pause_ms = 300
        \(more)
        """
    }

    /// One sink input of `pactl list sink-inputs`: its properties and state.
    struct SinkInput {
        var text: String
        var index: Int
        var role: String? { property("media.role") }
        var name: String? { property("media.name") }
        var pid: String? { property("application.process.id") }
        var corked: Bool { text.contains("Corked: yes") }

        func property(_ key: String) -> String? {
            for line in text.split(separator: "\n") {
                let t = line.trimmingCharacters(in: .whitespaces)
                guard t.hasPrefix(key + " = \"") else { continue }
                return String(t.dropFirst(key.count + 4).dropLast())
            }
            return nil
        }
    }

    static func sinkInputs() throws -> [SinkInput] {
        let result = try Spawned.run("/usr/bin/pactl", ["list", "sink-inputs"])
        guard result.status == 0 else { throw FixtureError("pactl list sink-inputs: \(result.stderr)") }
        return result.stdout.components(separatedBy: "Sink Input #").dropFirst().map { text in
            SinkInput(text: text, index: Int(text.prefix { $0.isNumber }) ?? -1)
        }
    }

    /// The daemon's streams (by its process id), by role.
    func daemonStreams() throws -> [SinkInput] {
        try Self.sinkInputs().filter { $0.pid == "\(daemon.pid)" }
    }

    func stream(role: String) throws -> SinkInput? {
        try daemonStreams().first { $0.role == role }
    }

    /// The alarm (category playback, the theme's `role = "alarm"`) plays on a
    /// second stream whose role is Alarm; the taps' stream stays `event`.
    func testAnAlarmPlaysOnAStreamOfItsOwnWhoseRoleIsAlarm() throws {
        XCTAssertEqual(try cli.run(["play", "tap"]).status, 0)
        XCTAssertTrue(eventually(5) { ((try? self.daemonStreams()) ?? []).count == 1 })
        XCTAssertEqual(try daemonStreams().map(\.role), ["event"], "a tap opens no other stream")

        var result: Spawned.Result!
        let peak = try Pulse.peak(0.6) { result = try cli.run(["play", "alarm", "--loop"]) }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThan(peak, 0.05, "the alarm did not reach the sink")
        let streams = try daemonStreams()
        let alarm = try XCTUnwrap(streams.first { $0.role == "Alarm" }, "no stream with media.role Alarm: \(streams.map(\.text))")
        XCTAssertEqual(alarm.name, "sysound (Alarm)")
        XCTAssertNotNil(try stream(role: "event"), "the event stream is still there")
        let status = try cli.run(["status"]).stdout
        XCTAssertTrue(status.contains("event,alarm"), status)

        // stop reaches the alarm's stream too.
        XCTAssertEqual(try cli.run(["stop"]).status, 0)
        usleep(100_000)
        XCTAssertLessThan(try Pulse.peak(0.3) {}, 1e-4, "stop left the alarm playing")
        // A request may name its role; a second alarm-role play reuses the stream.
        XCTAssertEqual(try cli.run(["play", "bell", "--role", "ringtone"]).status, 0)
        XCTAssertNotNil(try stream(role: "Ringtone"))
        XCTAssertEqual(try cli.run(["play", "alarm"]).status, 0)
        XCTAssertEqual(try daemonStreams().compactMap(\.role).sorted(), ["Alarm", "Ringtone", "event"])
    }

    /// A role's stream is corked at the idle pause like the event stream,
    /// and a play after it is heard.
    func testARolesStreamIsCorkedWhenIdleAndPlaysAgain() throws {
        XCTAssertEqual(try cli.run(["play", "alarm"]).status, 0)  // once: about 1.5 s
        let alarm = try XCTUnwrap(try stream(role: "Alarm"))
        XCTAssertTrue(eventually(6) { (try? self.stream(role: "Alarm"))??.corked ?? false },
                      "the alarm's stream was not corked when idle: \(alarm.text)")
        var result: Spawned.Result!
        let peak = try Pulse.peak(0.6) { result = try cli.run(["play", "alarm"]) }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThan(peak, 0.05, "the alarm after the idle pause was not heard")
        XCTAssertEqual(try stream(role: "Alarm")?.index, alarm.index, "the same stream, uncorked, not a new one")
        XCTAssertFalse(try stream(role: "Alarm")?.corked ?? true, "playing, uncorked")
        // Stopped mid-sound, it corks again at the idle pause: a stream left
        // uncorked keeps the server's role policy on (a duck, a cork of music).
        XCTAssertEqual(try cli.run(["stop"]).status, 0)
        XCTAssertTrue(eventually(3) { (try? self.stream(role: "Alarm"))??.corked ?? false },
                      "the alarm's stream was not corked after a stop: \(daemon.log(tail: 10))")
    }

    /// The daemon's sound-server clients (`pactl list clients`, by its process id).
    func daemonClients() throws -> Int {
        let result = try Spawned.run("/usr/bin/pactl", ["list", "clients"])
        guard result.status == 0 else { throw FixtureError("pactl list clients: \(result.stderr)") }
        return result.stdout.components(separatedBy: "application.process.id = \"\(daemon.pid)\"").count - 1
    }

    /// The daemon's threads (/proc/PID/task).
    func daemonThreads() -> Int { daemonThreadNames().count }

    /// Their names (/proc/PID/task/TID/comm), for a message.
    func daemonThreadNames() -> [String] {
        let dir = "/proc/\(daemon.pid)/task"
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).map { tid in
            ((try? String(contentsOfFile: "\(dir)/\(tid)/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
        }.sorted()
    }

    /// A role's stream is a stream on the daemon's one sound-server
    /// connection, rendered by its one real-time thread: while an alarm
    /// plays beside the event stream the daemon has one client and no more
    /// threads than idle. The role's engine is closed after `role_release_s`
    /// without a sound: its stream goes, the event stream stays on the
    /// connection and plays; the role's next sound opens it again and is heard.
    func testARolesStreamIsClosedAfterItsQuietTimeAndOpensAgainOnItsNextSound() throws {
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try DaemonProcess(config: Self.config(audio: "role_release_s = 1"))
        XCTAssertEqual(try cli.run(["play", "tap"]).status, 0)
        XCTAssertTrue(eventually(5) { ((try? self.daemonStreams()) ?? []).count == 1 })
        // Counted once the theme is loaded: its load runs on a thread that ends with it.
        XCTAssertTrue(eventually(10) { self.daemon.log().contains("preloaded ") }, daemon.log(tail: 10))
        let (clients, threads) = (try daemonClients(), daemonThreads())

        XCTAssertEqual(clients, 1, "the event stream's connection")
        XCTAssertEqual(try cli.run(["play", "alarm", "--loop"]).status, 0)
        XCTAssertNotNil(try stream(role: "Alarm"))
        XCTAssertEqual(try daemonClients(), 1, "the alarm's stream is on the daemon's one sound-server client")
        // The role's only thread is OpenAL Soft 1.19's: every context starts an
        // event thread (asleep; named after the worker that made it). Each role
        // had its own libpulse mainloop too (`sysound-audio`), and a client.
        XCTAssertEqual(daemonThreadNames().filter { $0 == "sysound-audio" }.count, 1,
                       "the alarm's stream is rendered by the daemon's one audio thread: \(daemonThreadNames())")
        XCTAssertEqual(daemonThreads(), threads + 1, "its OpenAL Soft context's event thread only: \(daemonThreadNames())")
        usleep(1_600_000)
        XCTAssertNotNil(try stream(role: "Alarm"), "closed while the alarm still played, past its quiet time")
        XCTAssertEqual(try cli.run(["stop"]).status, 0)
        XCTAssertTrue(eventually(6) { (try? self.daemonStreams())?.contains { $0.role == "Alarm" } == false },
                      "the alarm's stream was not closed after its quiet time: \(daemon.log(tail: 10))")
        XCTAssertNotNil(try stream(role: "event"), "the event stream stays")
        XCTAssertEqual(try daemonClients(), 1, "the connection stays for the event stream")
        XCTAssertTrue(eventually(3) { self.daemonThreads() == threads }, "\(self.daemonThreads()) threads, \(threads) before")
        var tap: Spawned.Result!
        XCTAssertGreaterThan(try Pulse.peak(0.4) { tap = try cli.run(["play", "tap"]) }, 0.01, "the event stream plays after the alarm's close")
        XCTAssertEqual(tap.status, 0, tap.stderr)
        let status = try cli.run(["status"]).stdout
        XCTAssertFalse(status.contains("event,alarm"), "status still names the alarm's stream: \(status)")

        var result: Spawned.Result!
        let peak = try Pulse.peak(0.6) { result = try cli.run(["play", "alarm"]) }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThan(peak, 0.05, "the alarm after the release was not heard")
        XCTAssertNotNil(try stream(role: "Alarm"), "opened again with its role")
    }

    /// The daemon gives back each context's unused OpenAL Soft voices as it
    /// makes it (`ContextVoiceMemory`): the event engine's and a role's,
    /// whose sounds are still heard whole.
    func testEveryContextOfTheDaemonGivesBackItsUnusedVoices() throws {
        func released() -> Int { daemon.log().components(separatedBy: "of 256 unused OpenAL Soft voices given back").count - 1 }
        XCTAssertGreaterThan(try Pulse.peak(0.4) { XCTAssertEqual(try cli.run(["play", "tap"]).status, 0) }, 0.01)
        XCTAssertEqual(released(), 1, "the event engine's context: \(daemon.log(tail: 10))")
        var result: Spawned.Result!
        XCTAssertGreaterThan(try Pulse.peak(0.6) { result = try cli.run(["play", "alarm"]) }, 0.05, "the alarm was not heard")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(released(), 2, "the alarm's context too: \(daemon.log(tail: 10))")
    }

    /// After the server went away and came back, the role's engine reopens
    /// its stream with the same role (the reopen is the engine's own, as
    /// the event stream's), and the next alarm is heard there.
    func testARolesStreamReopensWithItsRoleAfterTheServerReturns() throws {
        XCTAssertEqual(try cli.run(["play", "alarm"]).status, 0)
        XCTAssertNotNil(try stream(role: "Alarm"))
        try Pulse.control("stop")
        var back = false
        defer { if !back { try? Pulse.control("start") } }
        usleep(300_000)
        try Pulse.control("start")
        back = true
        XCTAssertTrue(eventually(10) { (try? self.stream(role: "Alarm")) != nil && (try? self.stream(role: "event")) != nil },
                      "the streams did not come back: \(daemon.log(tail: 20))")
        var heard: Float = 0
        XCTAssertTrue(eventually(6) {
            heard = (try? Pulse.peak(0.6) { _ = try self.cli.run(["play", "alarm"]) }) ?? 0
            return heard > 0.05
        }, "the alarm was not heard after the server returned")
        XCTAssertEqual(try daemonStreams().compactMap(\.role).sorted(), ["Alarm", "event"])
        XCTAssertEqual(try daemonClients(), 1, "both streams are back on one new connection")
    }

    /// Silent mode, volume and interruptions reach the role's stream as the
    /// event stream's: the alarm (playback) survives silent mode, volume 0
    /// silences it, an interruption pauses it.
    func testTheSettingsReachEveryRolesStream() throws {
        XCTAssertEqual(try cli.run(["play", "alarm", "--loop"]).status, 0)
        XCTAssertNotNil(try stream(role: "Alarm"))
        XCTAssertEqual(try cli.run(["volume", "0"]).status, 0)
        usleep(150_000)
        XCTAssertLessThan(try Pulse.peak(0.4) {}, 1e-4, "volume 0 left the alarm's stream sounding")
        XCTAssertEqual(try cli.run(["volume", "1"]).status, 0)
        XCTAssertEqual(try cli.run(["interrupt", "begin"]).status, 0)
        usleep(150_000)
        XCTAssertLessThan(try Pulse.peak(0.4) {}, 1e-4, "an interruption left the alarm playing")
        XCTAssertEqual(try cli.run(["interrupt", "end", "--resumable"]).status, 0)
        XCTAssertGreaterThan(try Pulse.peak(0.6) {}, 0.05, "the alarm did not resume after a resumable interruption")
        XCTAssertEqual(try cli.run(["stop"]).status, 0)
    }

    /// PulseAudio's module-role-ducking (triggered by Ringtone and Alarm,
    /// ducking `music`) lowers a steady music tone while the ringtone plays,
    /// and not while a tap (`event`) plays: the server's policy sees the roles.
    func testARingtoneDucksMusicUnderModuleRoleDuckingAndATapDoesNot() throws {
        guard Pulse.server == .pulseaudio else {
            throw XCTSkip("pipewire-pulse has no module-role-ducking; WirePlumber's role-based policy is configured differently")
        }
        let load = try Spawned.run("/usr/bin/pactl", [
            "load-module", "module-role-ducking", "trigger_roles=Ringtone,Alarm", "ducking_roles=music", "volume=-20dB", "global=true",
        ])
        XCTAssertEqual(load.status, 0, load.stderr)
        let module = load.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? Spawned.run("/usr/bin/pactl", ["unload-module", module]) }

        // 8 s of a 97 Hz tone at 0.3 on a stream with media.role=music, with
        // a deep buffer: an underrun of pacat on a loaded machine would read as
        // a duck (the server applies the duck when it mixes, buffered or not).
        let frequency = 97.0, rate = 48_000.0
        let tone = (0..<Int(8 * rate)).flatMap { i -> [Float] in
            let v = Float(0.3 * sin(2 * Double.pi * frequency * Double(i) / rate))
            return [v, v]
        }
        let file = daemon.root + "/music.f32"
        try tone.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: file))
        let music = try Spawned("/usr/bin/pacat", [
            "--playback", "--raw", "--format=float32le", "--rate=48000", "--channels=2",
            "--property=media.role=music", "--latency-msec=500", file,
        ], output: .discard)
        defer { music.signal(SIGTERM); _ = music.wait(timeout: 5) }
        func level(_ seconds: Double, during action: () throws -> Void = {}) throws -> Double {
            let recording = try MonitorRecording()
            try action()
            let x = try recording.samples(secondsFromNow: seconds)
            return Signal.amplitude(of: frequency, in: x.suffix(Int(0.25 * rate)))
        }
        XCTAssertTrue(eventually(5) { ((try? level(0.3)) ?? 0) > 0.2 }, "the music tone never reached the sink")
        let before = try level(0.3)

        // A tap (event) does not duck the music.
        let withTap = try level(0.3) { XCTAssertEqual(try cli.run(["play", "tap"]).status, 0) }
        XCTAssertGreaterThan(withTap, before * 0.8, "a tap ducked the music: \(withTap) against \(before)")

        // The ringtone (role Ringtone) does, while it plays.
        let withRingtone = try level(0.6) { XCTAssertEqual(try cli.run(["play", "ringtone", "--loop"]).status, 0) }
        XCTAssertNotNil(try stream(role: "Ringtone"))
        XCTAssertLessThan(withRingtone, before * 0.3, "the ringtone did not duck the music: \(withRingtone) against \(before)")
        // Once it stopped and its stream corked, the music comes back.
        XCTAssertEqual(try cli.run(["stop"]).status, 0)
        XCTAssertTrue(eventually(5) { ((try? level(0.3)) ?? 0) > before * 0.8 }, "the music stayed ducked after the ringtone")
    }
}
