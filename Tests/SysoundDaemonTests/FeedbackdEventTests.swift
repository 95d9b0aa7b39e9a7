import Foundation
import SysoundConfig
import SysoundCore
import SysoundPlatform
import SysoundFeedback
import SysoundHaptics
import SysoundState
import SysoundTestSupport
import SysoundTesting
import XCTest

/// A D-Bus event's vibration as the feedbackd theme says: each profile plays
/// only the vibration of the sections it uses, an event's vibration ends a
/// running `Vibrate` pattern and turns the next one away while it runs. The
/// real manager with a fake rumble device (the daemon's tests have no
/// vibrator), sounds rendered to the loopback.
final class FeedbackdEventTests: XCTestCase {
    static let theme = """
        {"name": "t", "profiles": [
          {"name": "full", "feedbacks": [
            {"event-name": "e", "type": "VibraRumble", "duration": 40, "magnitude": 1.0},
            {"event-name": "sound-only", "type": "Sound", "effect": "tap"}]},
          {"name": "quiet", "feedbacks": [{"event-name": "e", "type": "VibraRumble", "duration": 20, "magnitude": 0.5}]}]}
        """

    var state = Locked(SystemState())
    var manager: FeedbackManager!
    var rumble: FakeForceFeedbackDevice!
    var haptics: HapticsEngine!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let (configuration, theme, _) = try ServiceSetup.load(configPath: nil)
        let host = try LoopHost.ownThread(name: "test-fbtheme")
        haptics = try HapticsEngine(presets: configuration.haptics.presets, deviceDirectory: nil, host: host, logger: RunningDaemon.logger)
        rumble = FakeForceFeedbackDevice(path: "/dev/input/event-fbtheme")
        XCTAssertTrue(haptics.attach(rumble))
        try haptics.start()
        let directory = StateDirectory(path: makeTemporaryDirectory())
        let state = state
        manager = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: directory, audio: .loopback,
            haptics: haptics, settings: .read { state.withLock { $0 } }, host: host, logger: RunningDaemon.logger)
        let file = directory.path + "/t.json"
        try Self.theme.write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertFalse(manager.loadFeedbackdTheme(environment: ["FEEDBACK_THEME": file, "XDG_DATA_DIRS": "/nonexistent"]).containsErrors)
        addTeardownBlock { [haptics, manager] in
            haptics?.shutdown()
            manager?.audio?.shutdown()
            try? FileManager.default.removeItem(atPath: directory.path)
        }
    }

    func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.now() + 3_000_000_000
        while !condition() && MonotonicClock.now() < deadline { usleep(2_000) }
        return condition()
    }

    /// The lengths of the effects the device was given to play, in order.
    func playedLengths() -> [UInt16] {
        var uploaded: [Int: RumbleEffect] = [:]
        var lengths: [UInt16] = []
        for record in rumble.records {
            switch record.operation {
            case .upload(let id, let effect, _): uploaded[id] = effect
            case .play(let id): if let effect = uploaded[id] { lengths.append(effect.lengthMs) }
            default: break
            }
        }
        return lengths
    }

    func testEachProfilePlaysOnlyTheVibrationOfItsSections() throws {
        let request = PlayRequest(.name("e"), app: "org.example.A")
        // quiet (silent mode on): the quiet section's 20 ms at 0.5, never the full section's.
        state.withLock { $0 = SystemState(silent: true) }
        let quiet = try XCTUnwrap(manager.triggerEvent("e", request))
        XCTAssertEqual(quiet.level, .quiet)
        XCTAssertTrue(quiet.found)
        XCTAssertEqual(quiet.vibration, try HapticPattern(parsing: "0.5:20"))
        XCTAssertTrue(eventually { self.playedLengths().contains(20) }, "\(rumble.records)")
        XCTAssertFalse(playedLengths().contains(40), "the full section's vibration played in quiet")
        XCTAssertTrue(eventually { !self.haptics.isVibrating })

        // full: the full section's vibration (the first of the sections it uses).
        state.withLock { $0 = SystemState() }
        XCTAssertEqual(manager.triggerEvent("e", request)?.vibration, try HapticPattern(parsing: "1:40"))
        XCTAssertTrue(eventually { self.playedLengths().contains(40) })
        XCTAssertTrue(eventually { !self.haptics.isVibrating })

        // silent: no section of this event is used: nothing, and not-found for the face.
        state.withLock { $0 = SystemState(silent: true, haptics: false) }
        let silent = try XCTUnwrap(manager.triggerEvent("e", request))
        XCTAssertFalse(silent.found)
        XCTAssertNil(silent.vibration)
        // The keyboard's events (sysound's built-in silent section) are felt even in silent.
        XCTAssertEqual(manager.triggerEvent("key-pressed", request)?.vibration, try HapticPattern(parsing: "1:7"))
        // In full with the haptics switch off, the quiet section's vibration is not felt.
        state.withLock { $0 = SystemState(haptics: false) }
        XCTAssertNil(manager.triggerEvent("e", request)?.vibration)
        // A sound-only event in quiet: known to the theme, nothing to do.
        state.withLock { $0 = SystemState(silent: true) }
        XCTAssertEqual(manager.triggerEvent("sound-only", request)?.found, false)
        // An event the theme does not know is left to sysound's names.
        XCTAssertNil(manager.triggerEvent("button-pressed", request))
        // A request's profile hint lowers the level as the user's would.
        state.withLock { $0 = SystemState() }
        XCTAssertEqual(manager.triggerEvent("e", PlayRequest(.name("e"), profile: .quiet))?.vibration, try HapticPattern(parsing: "0.5:20"))
    }

    func testAnEventsVibrationEndsAVibrateAndTurnsTheNextAway() throws {
        let long = try HapticPattern(parsing: "0.7:2000")
        func vibrate() -> String? {
            guard case .ok(let fields, _) = manager.handle(.vibrate(VibrateRequest(.pattern(long), app: "org.example.V"))) else { return nil }
            return fields["outcome"]
        }
        XCTAssertEqual(vibrate(), "vibrate")
        XCTAssertTrue(eventually { self.playedLengths().count >= 1 })
        let event = try XCTUnwrap(manager.triggerEvent("e", PlayRequest(.name("e"))))
        XCTAssertEqual(event.vibration, try HapticPattern(parsing: "1:40"))
        XCTAssertTrue(eventually { self.playedLengths().last == 40 }, "the event's vibration did not replace the running pattern")
        // While the event's vibration runs, a Vibrate pattern is refused (feedbackd: "haptic busy").
        XCTAssertEqual(vibrate(), "skip")
        XCTAssertTrue(eventually { !self.haptics.isVibrating })
        XCTAssertEqual(vibrate(), "vibrate")
    }

    func testDoNotDisturbHoldsTheThemesVibrationButNotTheKeyboards() throws {
        manager.setDesktop(DesktopState(doNotDisturb: true))
        XCTAssertNil(manager.triggerEvent("e", PlayRequest(.name("e"), app: "org.example.A"))?.vibration)
        XCTAssertEqual(manager.triggerEvent("key-pressed", PlayRequest(.name("key-pressed")))?.vibration, try HapticPattern(parsing: "1:7"))
        // feedbackd's per-app profile caps the level as [apps] does.
        manager.setDesktop(DesktopState(appProfiles: ["org.example.Q": .quiet]))
        XCTAssertEqual(manager.triggerEvent("e", PlayRequest(.name("e"), app: "org.example.Q"))?.vibration, try HapticPattern(parsing: "0.5:20"))
    }

    func testAReloadAppliesTheStrengthCap() throws {
        var configuration = manager.configuration
        configuration.haptics.strengthCap = 0.5
        manager.reload(configuration: configuration, theme: manager.theme)
        XCTAssertTrue(eventually { self.haptics.strengthCap == 0.5 }, "max-haptic-strength (strength_cap) was not applied on reload")
        XCTAssertNotNil(manager.feedbackdTheme, "the reload dropped the feedbackd theme")
    }
}
