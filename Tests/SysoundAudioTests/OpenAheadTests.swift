import SysoundCore
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// What a process opens ahead for its own stream while it reads its theme
/// (`AudioProcess.openAhead`): the mixer (`LoopbackOutput.openAhead`), taken
/// by the first own stream that asks for the same device, once (a mixer for
/// other settings is closed, not used); and the event role's stream with its
/// connection (`PulseStream.connectAhead`), corked until the first sound,
/// which the open takes when it asks for that stream, and which is closed
/// when no open took it.
final class OpenAheadTests: XCTestCase {
    override func tearDown() {
        LoopbackOutput.openedAhead(AudioSettings())?.close()  // nothing is left for the next test
        super.tearDown()
    }

    func testTheMixerOpenedAheadIsTakenOnce() throws {
        let s = AudioSettings()
        LoopbackOutput.openAhead(s)
        let ahead = try XCTUnwrap(LoopbackOutput.openedAhead(s), "the mixer opened ahead")
        defer { ahead.close() }
        XCTAssertEqual(ahead.al.frequency, s.sampleRate)
        XCTAssertNil(LoopbackOutput.openedAhead(s), "taken once")
    }

    func testAMixerForOtherSettingsIsNotTaken() throws {
        let s = AudioSettings()
        var other = s
        other.sampleRate = 44_100
        LoopbackOutput.openAhead(s)
        XCTAssertNil(LoopbackOutput.openedAhead(other), "another rate is another device")
        XCTAssertNil(LoopbackOutput.openedAhead(s), "and the one ahead is gone (closed)")
    }

    /// A one-shot play of an unknown sound exits about 2 ms after it started
    /// opening its mixer: exit() then ran OpenAL Soft's destructor
    /// (`alc_deinit`), which frees what the opening thread was using, and the
    /// process died of SIGSEGV or SIGABRT instead of its exit status. Each
    /// child here (this test, run again by itself) opens ahead, waits a step
    /// longer, and exits; the steps sweep the open.
    func testAProcessExitingWhileTheMixerOpensEndsCleanly() throws {
        if let delay = ProcessInfo.processInfo.environment[Self.childDelay].flatMap(UInt32.init) {
            LoopbackOutput.openAhead(AudioSettings())
            usleep(delay)
            exit(0)
        }
        var statuses: [Int32: [Int]] = [:]
        for delay in stride(from: 0, to: 4_000, by: 100) {
            let child = try runThisTestAgain(
                "SysoundAudioTests.OpenAheadTests/testAProcessExitingWhileTheMixerOpensEndsCleanly",
                environment: [Self.childDelay: "\(delay)"])
            statuses[child.status, default: []].append(delay)
        }
        XCTAssertEqual(statuses.keys.sorted(), [0], "exit statuses (negative: signals) by delay in µs: \(statuses)")
    }

    private static let childDelay = "SYSOUND_TEST_EXIT_WHILE_OPENING_AHEAD_US"

    /// The engine's own stream mixes on the device opened ahead, and the
    /// sound arrives at the sink as it would on a mixer opened in the open.
    func testTheOwnStreamTakesTheMixerOpenedAhead() throws {
        let p = try PulseFixture.require()
        var s = AudioSettings()
        s.backend = .pulse
        LoopbackOutput.openAhead(s)
        let engine = try AudioEngine(settings: s, output: .device)
        defer { engine.shutdown() }
        XCTAssertTrue(engine.playsOnOwnStream)
        XCTAssertNil(LoopbackOutput.openedAhead(s), "the stream took the mixer opened ahead")
        XCTAssertEqual(try toneLevelAtTheSink(engine, p), 0.5, accuracy: 0.05, "the tone arrives at its level")
    }

    /// The open takes the stream made ahead instead of making one: the
    /// server's sink input made ahead is the one that plays, corked until the
    /// first sound, and it is gone once the engine is shut down. (Sink inputs
    /// are told apart from those of engines other tests left in the process.)
    func testTheOwnStreamIsTheStreamMadeAheadCorkedUntilTheFirstSound() throws {
        let p = try PulseFixture.require()
        var s = AudioSettings()
        s.backend = .pulse
        let before = try Self.ownSinkInputs()
        PulseStream.connectAhead(s)
        var ahead: [SinkInput] = []
        XCTAssertTrue(eventually(2) { ahead = Self.newSinkInputs(since: before); return ahead.count == 1 }, "the stream made ahead is on the server")
        XCTAssertEqual(ahead.first?.corked, true, "corked: a sound the policy silences wakes no sink")

        let engine = try AudioEngine(settings: s, output: .device)
        XCTAssertTrue(engine.playsOnOwnStream)
        XCTAssertEqual(Self.newSinkInputs(since: before).map(\.index), ahead.map(\.index), "the open took the stream made ahead")
        XCTAssertEqual(try toneLevelAtTheSink(engine, p), 0.5, accuracy: 0.05, "the first sound uncorks it and arrives at its level")

        engine.shutdown()
        XCTAssertTrue(eventually(2) { Self.newSinkInputs(since: before).isEmpty }, "the stream closed with the engine")
    }

    /// An open for other settings makes its own stream, and the one made
    /// ahead is closed.
    func testAStreamMadeAheadForOtherSettingsIsClosed() throws {
        _ = try PulseFixture.require()
        var s = AudioSettings()
        s.backend = .pulse
        var other = s
        other.sampleRate = 44_100
        let before = try Self.ownSinkInputs()
        PulseStream.connectAhead(s)
        let engine = try AudioEngine(settings: other, output: .device)
        defer { engine.shutdown() }
        XCTAssertTrue(engine.playsOnOwnStream)
        XCTAssertTrue(eventually(2) { Self.newSinkInputs(since: before).map(\.rate) == [44_100] }, "only the open's stream is left")
    }

    /// A stream made ahead that no open took (a silenced sound, an open of
    /// OpenAL Soft's own device) is closed when its hold ends, and with it
    /// the connection it made.
    func testAStreamMadeAheadThatNoOpenTookCloses() throws {
        _ = try PulseFixture.require()
        let before = try Self.ownSinkInputs(), clientsBefore = try Self.ownClients()
        PulseStream.connectAhead(AudioSettings())
        XCTAssertTrue(eventually(2) { Self.newSinkInputs(since: before).count == 1 }, "the stream made ahead is on the server")
        PulseStream.releaseAhead()
        XCTAssertTrue(eventually(2) { Self.newSinkInputs(since: before).isEmpty }, "and closed once no open took it")
        XCTAssertTrue(eventually(2) { (try? Self.ownClients()) == clientsBefore }, "with the connection it made, if it made one")
    }

    /// Plays a 0.2 s tone at half scale on `engine` and returns its peak at the sink (left channel).
    private func toneLevelAtTheSink(_ engine: AudioEngine, _ p: PulseFixture) throws -> Float {
        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.2), to: dir, name: "tone.wav")
        engine.preload([ClipSource(name: "tone", path: path)])
        let before = p.recordedBytes
        let voice = try engine.play(engine.clip(named: "tone"))
        XCTAssertTrue(engine.wait(for: voice, timeout: 2))
        usleep(150_000)
        return Fixture.peak(Fixture.channel(try p.recorded(since: before), 0))
    }

    /// The server's clients that are this process.
    static func ownClients() throws -> Int {
        let text = try Spawned.run("/usr/bin/pactl", ["list", "clients"]).stdout
        return text.components(separatedBy: "Client #").filter { $0.contains("application.process.id = \"\(getpid())\"") }.count
    }

    struct SinkInput {
        let index: Int
        let corked: Bool
        let rate: Int
    }

    /// This process's sink inputs that are not among `before`.
    static func newSinkInputs(since before: [SinkInput]) -> [SinkInput] {
        let old = Set(before.map(\.index))
        return ((try? ownSinkInputs()) ?? []).filter { !old.contains($0.index) }
    }

    /// The server's sink inputs that are this process's streams.
    static func ownSinkInputs() throws -> [SinkInput] {
        let text = try Spawned.run("/usr/bin/pactl", ["list", "sink-inputs"]).stdout
        return text.components(separatedBy: "Sink Input #").dropFirst().compactMap { block -> SinkInput? in
            guard block.contains("application.process.id = \"\(getpid())\""),
                  let index = Int(block.prefix { $0.isNumber }) else { return nil }
            let lines = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let spec = lines.first { $0.hasPrefix("Sample Specification:") } ?? ""
            let rate = spec.split(separator: " ").last.flatMap { Int($0.dropLast(2)) } ?? 0
            return SinkInput(index: index, corked: lines.contains("Corked: yes"), rate: rate)
        }
    }
}
