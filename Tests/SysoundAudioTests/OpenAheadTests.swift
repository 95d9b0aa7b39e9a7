import SysoundCore
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// What a process opens ahead for its own stream while it reads its theme
/// (`AudioProcess.openAhead`): the mixer (`LoopbackOutput.openAhead`), taken
/// by the first own stream that asks for the same device, once (a mixer for
/// other settings is closed, not used); and the connection
/// (`PulseConnection.connectAhead`), which that stream joins, and which
/// closes with the stream, or at once when no stream joined it.
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

        let dir = try Fixture.directory(self)
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.2), to: dir, name: "tone.wav")
        engine.preload([ClipSource(name: "tone", path: path)])
        let before = p.recordedBytes
        let voice = try engine.play(engine.clip(named: "tone"))
        XCTAssertTrue(engine.wait(for: voice, timeout: 2))
        usleep(150_000)
        let left = Fixture.channel(try p.recorded(since: before), 0)
        XCTAssertEqual(Fixture.peak(left), 0.5, accuracy: 0.05, "the tone arrives at its level")
    }

    /// The stream joins the connection made ahead instead of making one, and
    /// the open ends the hold taken ahead: once the engine is shut down this
    /// process is no longer the server's client.
    func testTheOwnStreamJoinsTheConnectionMadeAhead() throws {
        _ = try PulseFixture.require()
        var s = AudioSettings()
        s.backend = .pulse
        let clientsBefore = try Self.ownClients(), triesBefore = PulseConnection.tries
        PulseConnection.connectAhead()
        let engine = try AudioEngine(settings: s, output: .device)
        XCTAssertTrue(engine.playsOnOwnStream)
        XCTAssertEqual(PulseConnection.tries - triesBefore, 1, "one connection made: the one ahead, which the stream joined")
        XCTAssertEqual(try Self.ownClients(), clientsBefore + 1, "one client on the server for the stream")
        engine.shutdown()
        XCTAssertTrue(eventually(2) { (try? Self.ownClients()) == clientsBefore }, "the connection closed with the stream")
    }

    /// A connection made ahead that no stream joined (a silenced sound, an
    /// open of OpenAL Soft's own device) is closed when its hold ends.
    func testAConnectionMadeAheadThatNoStreamJoinedCloses() throws {
        _ = try PulseFixture.require()
        let clientsBefore = try Self.ownClients()
        PulseConnection.connectAhead()
        XCTAssertTrue(eventually(2) { (try? Self.ownClients()) == clientsBefore + 1 }, "the connection made ahead is the server's client")
        PulseConnection.releaseAhead()
        XCTAssertTrue(eventually(2) { (try? Self.ownClients()) == clientsBefore }, "and closed once no stream joined it")
    }

    /// The server's clients that are this process.
    static func ownClients() throws -> Int {
        let text = try Spawned.run("/usr/bin/pactl", ["list", "clients"]).stdout
        return text.components(separatedBy: "Client #").filter { $0.contains("application.process.id = \"\(getpid())\"") }.count
    }
}
