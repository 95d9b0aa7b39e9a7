import SysoundCore
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// The mixer a one-shot process opens ahead, while it reads its theme
/// (`LoopbackOutput.openAhead`): taken by the first own stream that asks for
/// the same device, once; a mixer for other settings is closed, not used.
final class MixerAheadTests: XCTestCase {
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
                "SysoundAudioTests.MixerAheadTests/testAProcessExitingWhileTheMixerOpensEndsCleanly",
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
}
