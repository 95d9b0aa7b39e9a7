import Foundation
import SysoundTestSupport
import XCTest
import Logging
import SysoundCore
import SysoundPlatform
@testable import SysoundAudio

/// The private PulseAudio server of Tests/fixture/with-pulse.sh (a 48 kHz null
/// sink whose monitor is recorded to a file), as the device tests use it.
struct PulseFixture {
    let monitor: String
    /// The fixture's temp directory (pulse.pid and parec.pid are there).
    let directory: String

    /// The fixture, or a skip (a failure with SYSOUND_REQUIRE_PULSE=1).
    static func require() throws -> PulseFixture {
        let monitor = try Pulse.require()
        guard let directory = ProcessInfo.processInfo.environment["SYSOUND_FIXTURE_DIR"] else {
            throw FixtureError("SYSOUND_FIXTURE_DIR is unset: run under Tests/fixture/with-pulse.sh")
        }
        return PulseFixture(monitor: monitor, directory: directory)
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
    func control(_ verb: String) throws { try Pulse.control(verb) }

    /// `pactl list sink-inputs`: the streams the server has, with their Corked state.
    func sinkInputs() throws -> String {
        let result = try Spawned.run("/usr/bin/pactl", ["list", "sink-inputs"])
        XCTAssertEqual(result.status, 0, "pactl list sink-inputs: \(result.stderr)")
        return result.stdout
    }
}

/// A device test class whose engines play through another output than
/// OpenAL Soft's own device (the default of `deviceEngine`): a subclass of a
/// device test class that adopts it runs the same tests on that output.
protocol OutputSelecting {
    static var backend: AudioBackend { get }
}

extension XCTestCase {
    /// A device engine with `samples` (mono unless `channels` says otherwise, 48 kHz; by default a 150 ms,
    /// −6 dBFS 1 kHz tone) preloaded as "tap", on OpenAL Soft's device unless
    /// the test class selects another output (`OutputSelecting`).
    func deviceEngine(
        _ dir: String, samples: [Float] = Fixture.tone(frequency: 1_000, seconds: 0.15, amplitude: 0.5), channels: Int = 1,
        _ configure: (inout AudioSettings) -> Void = { _ in }
    ) throws -> (AudioEngine, Clip) {
        var s = AudioSettings()
        s.backend = (type(of: self) as? OutputSelecting.Type)?.backend ?? .openal
        configure(&s)
        let engine = try AudioEngine(settings: s, output: .device, realtime: .asTheDaemon)
        addTeardownBlock { engine.shutdown() }
        let path = try Fixture.write(samples, channels: channels, to: dir, name: "tap.wav")
        XCTAssertTrue(engine.preload([ClipSource(name: "tap", path: path)]).failures.isEmpty)
        return (engine, try engine.clip(named: "tap"))
    }
}

extension RealtimeThreads {
    /// The audio threads real-time as the shipped daemon makes them
    /// (`[audio] realtime_priority` = 4 directly, where this machine lets
    /// the test process; else they stay at normal priority, unlogged): a
    /// device test judges the engine as it ships, and a 6 ms stream at
    /// normal priority underruns on a busy machine (seen at load 4: gaps in
    /// every take of testTheClipArrivesWhole).
    static let asTheDaemon = RealtimeThreads(
        priority: 4, broker: nil, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
}
