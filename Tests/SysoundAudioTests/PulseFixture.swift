import Foundation
import XCTest
@testable import SysoundAudio

/// The private PulseAudio server of Tests/fixture/with-pulse.sh (a 48 kHz null
/// sink whose monitor is recorded to a file), as the device tests use it.
struct PulseFixture {
    let monitor: String
    let ctl: String
    /// The fixture's temp directory (pulse.pid and parec.pid are there).
    let directory: String

    /// The fixture, or a skip (a failure with SYSOUND_REQUIRE_PULSE=1).
    static func require() throws -> PulseFixture {
        let env = ProcessInfo.processInfo.environment
        guard env["PULSE_SERVER"] != nil, let monitor = env["SYSOUND_MONITOR_FILE"], let ctl = env["SYSOUND_PULSE_CTL"],
              let directory = env["SYSOUND_FIXTURE_DIR"] else {
            if env["SYSOUND_REQUIRE_PULSE"] == "1" {
                XCTFail("SYSOUND_REQUIRE_PULSE=1 but PULSE_SERVER is unset: run under Tests/fixture/with-pulse.sh")
            }
            throw XCTSkip("no PulseAudio fixture: run under Tests/fixture/with-pulse.sh")
        }
        return PulseFixture(monitor: monitor, ctl: ctl, directory: directory)
    }

    /// Bytes recorded from the monitor so far.
    var recordedBytes: Int {
        var st = stat()
        return stat(monitor, &st) == 0 ? Int(st.st_size) : 0
    }

    /// The stereo float frames appended to the recording since byte `offset`.
    func recorded(since offset: Int) throws -> [Float] {
        let fh = try XCTUnwrap(FileHandle(forReadingAtPath: monitor))
        defer { try? fh.close() }
        try fh.seek(toOffset: UInt64(offset / 8 * 8))
        let data = try fh.readToEnd() ?? Data()
        let usable = data.count / 8 * 8
        return data.prefix(usable).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Runs `pulse-ctl.sh verb` (stop, start).
    func control(_ verb: String) throws {
        let (status, _) = try Self.run(ctl, [verb])
        XCTAssertEqual(status, 0, "pulse-ctl \(verb) exit status")
    }

    /// `pactl list sink-inputs`: the streams the server has, with their Corked state.
    func sinkInputs() throws -> String {
        let (status, text) = try Self.run("/usr/bin/pactl", ["list", "sink-inputs"])
        XCTAssertEqual(status, 0, "pactl list sink-inputs exit status")
        return text
    }

    /// Runs a program with posix_spawn + waitpid (Foundation's Process missed
    /// the child's exit once OpenAL's threads were running) and returns its
    /// exit status and standard output, collected through a temp file.
    static func run(_ path: String, _ arguments: [String]) throws -> (Int32, String) {
        let out = NSTemporaryDirectory() + "sysound-run-\(UUID().uuidString)"
        defer { unlink(out) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var pid: pid_t = 0
        let args = [path] + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let rc = posix_spawn(&pid, path, &actions, nil, &argv, environ)
        guard rc == 0 else { throw XCTSkip("cannot run \(path): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }
}

extension XCTestCase {
    /// Polls `condition` every 5 ms for up to `seconds`.
    func until(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }

    /// A device engine with `samples` (mono, 48 kHz; by default a 150 ms,
    /// −6 dBFS 1 kHz tone) preloaded as "tap".
    func deviceEngine(
        _ dir: String, samples: [Float] = Fixture.tone(frequency: 1_000, seconds: 0.15, amplitude: 0.5),
        _ configure: (inout AudioSettings) -> Void = { _ in }
    ) throws -> (AudioEngine, Clip) {
        var s = AudioSettings()
        configure(&s)
        let engine = try AudioEngine(settings: s, output: .device)
        addTeardownBlock { engine.shutdown() }
        let path = try Fixture.write(samples, to: dir, name: "tap.wav")
        XCTAssertTrue(engine.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        return (engine, try engine.clip(named: "tap"))
    }
}
