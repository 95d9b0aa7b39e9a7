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
    /// The sink inputs the server had when the test took the fixture: not
    /// the test's. The process keeps what earlier tests left running (the
    /// library's embedded engine, corked when idle), and a test that read
    /// them as its own saw a corked stream before its own had paused.
    let earlierSinkInputs: Set<Int>

    /// The fixture, or a skip (a failure with SYSOUND_REQUIRE_PULSE=1).
    /// Take it before the test opens its engines.
    static func require() throws -> PulseFixture {
        let monitor = try Pulse.require()
        guard let directory = ProcessInfo.processInfo.environment["SYSOUND_FIXTURE_DIR"] else {
            throw FixtureError("SYSOUND_FIXTURE_DIR is unset: run under Tests/fixture/with-pulse.sh")
        }
        let earlier = Set(try Self.listSinkInputs().map(\.index))
        return PulseFixture(monitor: monitor, directory: directory, earlierSinkInputs: earlier)
    }

    /// `pactl list sink-inputs`, one entry per stream: its index and its text.
    private static func listSinkInputs() throws -> [(index: Int, text: String)] {
        let result = try Spawned.run("/usr/bin/pactl", ["list", "sink-inputs"])
        guard result.status == 0 else { throw FixtureError("pactl list sink-inputs: \(result.stderr)") }
        return result.stdout.components(separatedBy: "Sink Input #").dropFirst().compactMap { entry in
            Int(entry.prefix { $0.isNumber }).map { ($0, "Sink Input #" + entry) }
        }
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

    /// `pactl list sink-inputs` less those there before the test
    /// (`earlierSinkInputs`): the test's own streams, with their Corked state.
    func sinkInputs() throws -> String {
        try Self.listSinkInputs().filter { !earlierSinkInputs.contains($0.index) }.map(\.text).joined()
    }

    /// The index of the first of the test's own sink inputs on sink `sinkIndex`.
    func ownSinkInput(onSink sinkIndex: String) throws -> String? {
        let short = try Spawned.run("/usr/bin/pactl", ["list", "short", "sink-inputs"]).stdout
        for line in short.split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count > 1, fields[1] == sinkIndex, let index = Int(fields[0]) else { continue }
            if !earlierSinkInputs.contains(index) { return fields[0] }
        }
        return nil
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
