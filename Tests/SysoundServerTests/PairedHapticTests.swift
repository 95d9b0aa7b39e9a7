import Foundation
import SysoundAudio
import SysoundConfig
import SysoundCore
import SysoundEventLoop
import SysoundFeedback
import SysoundHaptics
import SysoundState
import SysoundTestSupport
import XCTest

/// A sound's paired haptic is felt when the sound is heard: the manager
/// starts it the audio output's reported latency after the play (a timer on
/// the haptics loop), while a vibration asked for alone is written at once.
/// The real manager, a device engine on the PulseAudio fixture, and a fake
/// rumble device whose plays are stamped on CLOCK_MONOTONIC.
final class PairedHapticTests: XCTestCase {
    func testThePairedHapticWaitsForTheOutputLatencyAndAVibrationAloneDoesNot() throws {
        try Pulse.require()
        let (configuration, theme, _) = try ServiceSetup.load(configPath: nil)
        let host = try LoopHost.ownThread(name: "test-paired")
        let logger = RunningDaemon.logger
        let haptics = try HapticsEngine(
            presets: configuration.haptics.presets, deviceDirectory: nil, host: host, logger: logger)
        let rumble = FakeForceFeedbackDevice(path: "/dev/input/event-paired")
        XCTAssertTrue(haptics.attach(rumble))
        try haptics.start()
        let directory = StateDirectory(path: makeTemporaryDirectory())
        let manager = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: directory, audio: .deviceNow,
            haptics: haptics, settings: .read { SystemState() }, host: host, logger: logger)
        addTeardownBlock {
            haptics.shutdown()
            manager.audio?.shutdown()
            try? FileManager.default.removeItem(atPath: directory.path)
        }
        _ = manager.preloadTheme()
        let audio = try XCTUnwrap(manager.audio)
        func plays() -> [UInt64] { rumble.records.compactMap { if case .play = $0.operation { $0.time } else { nil } } }
        func eventually(_ condition: () -> Bool) -> Bool {
            let deadline = MonotonicClock.now() + 3_000_000_000
            while !condition() && MonotonicClock.now() < deadline { usleep(2_000) }
            return condition()
        }
        // The server sends the stream's timing once it runs: a first tap starts it.
        _ = try manager.play(PlayRequest(.name("tap")))
        XCTAssertTrue(eventually { audio.outputLatencyNanoseconds > 0 }, "the device engine reports its output latency")
        XCTAssertTrue(eventually { !haptics.isUploading && !haptics.isVibrating && !audio.hasActiveVoices })

        var before = plays().count
        let latency = audio.outputLatencyNanoseconds
        var asked = MonotonicClock.now()
        let result = try manager.play(PlayRequest(.name("tap")))
        var returned = MonotonicClock.now()
        XCTAssertEqual(result.outcome, .playAndVibrate)
        XCTAssertTrue(eventually { plays().count > before })
        let paired = plays()[before]
        print("output latency \(latency) ns; paired haptic \(paired - asked) ns after the play")
        // The monitor refreshes the value every check, and it moves within a
        // period as the server drains the stream: half of it is a bound that
        // an immediate write (within `returned`) misses.
        XCTAssertGreaterThanOrEqual(paired, asked + latency / 2, "the paired haptic waits for the sound: latency \(latency) ns")
        XCTAssertGreaterThan(paired, returned, "its first step is a timer, not a write during play")
        XCTAssertTrue(eventually { !haptics.isVibrating && !audio.hasActiveVoices })

        before = plays().count
        asked = MonotonicClock.now()
        XCTAssertTrue(manager.handle(.vibrate(VibrateRequest(.preset("heavy")))).isOK)
        returned = MonotonicClock.now()
        XCTAssertEqual(plays().count, before + 1, "a vibration alone is written before the request returns")
        XCTAssertTrue((asked...returned).contains(plays()[before]))
    }
}
