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
            {"event-name": "sound-only", "type": "Sound", "effect": "tap"},
            {"event-name": "held", "type": "Dummy", "duration": 10000},
            {"event-name": "short", "type": "Dummy", "duration": 400},
            {"event-name": "blank", "type": "Dummy"}]},
          {"name": "quiet", "feedbacks": [{"event-name": "e", "type": "VibraRumble", "duration": 20, "magnitude": 0.5}]}]}
        """

    var state = Locked(SystemState())
    var manager: FeedbackManager!
    var rumble: FakeForceFeedbackDevice!
    var haptics: HapticsEngine!
    var host: LoopHost!
    var registry: FeedbackEvents?

    override func setUpWithError() throws {
        try super.setUpWithError()
        let (configuration, theme, _) = try ServiceSetup.load(configPath: nil)
        host = try LoopHost.ownThread(name: "test-fbtheme")
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

    /// What an event of the theme does at once, as the D-Bus face would run
    /// it: its plan, and the vibration its first run started.
    struct Triggered {
        var level: FeedbackProfile
        var found: Bool
        var vibration: HapticPattern?
    }

    func trigger(_ event: String, _ request: PlayRequest) -> Triggered? {
        guard let plan = manager.eventPlan(event, request) else { return nil }
        var vibration: HapticPattern?
        for case .vibration(let pattern, let section, let request) in plan.feedbacks
        where manager.startEventVibration(pattern, section: section, request) == nil {
            vibration = pattern
        }
        return Triggered(level: plan.level, found: !plan.feedbacks.isEmpty, vibration: vibration)
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
        let quiet = try XCTUnwrap(trigger("e", request))
        XCTAssertEqual(quiet.level, .quiet)
        XCTAssertTrue(quiet.found)
        XCTAssertEqual(quiet.vibration, try HapticPattern(parsing: "0.5:20"))
        XCTAssertTrue(eventually { self.playedLengths().contains(20) }, "\(rumble.records)")
        XCTAssertFalse(playedLengths().contains(40), "the full section's vibration played in quiet")
        XCTAssertTrue(eventually { !self.haptics.isVibrating })

        // full: the full section's vibration (the first of the sections it uses).
        state.withLock { $0 = SystemState() }
        XCTAssertEqual(trigger("e", request)?.vibration, try HapticPattern(parsing: "1:40"))
        XCTAssertTrue(eventually { self.playedLengths().contains(40) })
        XCTAssertTrue(eventually { !self.haptics.isVibrating })

        // silent: no section of this event is used: nothing, and not-found for the face.
        state.withLock { $0 = SystemState(silent: true, haptics: false) }
        let silent = try XCTUnwrap(trigger("e", request))
        XCTAssertFalse(silent.found)
        XCTAssertNil(silent.vibration)
        // The keyboard's events (sysound's built-in silent section) are felt even in silent.
        XCTAssertEqual(trigger("key-pressed", request)?.vibration, try HapticPattern(parsing: "1:7"))
        // In full with the haptics switch off, the quiet section's vibration is not felt.
        state.withLock { $0 = SystemState(haptics: false) }
        XCTAssertNil(trigger("e", request)?.vibration)
        // A sound-only event in quiet: known to the theme, nothing to do.
        state.withLock { $0 = SystemState(silent: true) }
        XCTAssertEqual(trigger("sound-only", request)?.found, false)
        // An event the theme does not know is left to sysound's names.
        XCTAssertNil(trigger("button-pressed", request))
        // A request's profile hint lowers the level as the user's would.
        state.withLock { $0 = SystemState() }
        XCTAssertEqual(trigger("e", PlayRequest(.name("e"), profile: .quiet))?.vibration, try HapticPattern(parsing: "0.5:20"))
    }

    func testAnEventsVibrationEndsAVibrateAndTurnsTheNextAway() throws {
        let long = try HapticPattern(parsing: "0.7:2000")
        func vibrate() -> String? {
            guard case .ok(let fields, _) = manager.handle(.vibrate(VibrateRequest(.pattern(long), app: "org.example.V"))) else { return nil }
            return fields["outcome"]
        }
        XCTAssertEqual(vibrate(), "vibrate")
        XCTAssertTrue(eventually { self.playedLengths().count >= 1 })
        let event = try XCTUnwrap(trigger("e", PlayRequest(.name("e"))))
        XCTAssertEqual(event.vibration, try HapticPattern(parsing: "1:40"))
        XCTAssertTrue(eventually { self.playedLengths().last == 40 }, "the event's vibration did not replace the running pattern")
        // While the event's vibration runs, a Vibrate pattern is refused (feedbackd: "haptic busy").
        XCTAssertEqual(vibrate(), "skip")
        // Once it has ended (the manager hears of it on its loop, a moment
        // after the engine stops), a Vibrate plays again.
        XCTAssertTrue(eventually { !self.haptics.isVibrating })
        XCTAssertTrue(eventually { vibrate() == "vibrate" }, "a Vibrate after the event's vibration ended was refused")
    }

    func testDoNotDisturbHoldsTheThemesVibrationButNotTheKeyboards() throws {
        manager.setDesktop(DesktopState(doNotDisturb: true))
        XCTAssertNil(trigger("e", PlayRequest(.name("e"), app: "org.example.A"))?.vibration)
        XCTAssertEqual(trigger("key-pressed", PlayRequest(.name("key-pressed")))?.vibration, try HapticPattern(parsing: "1:7"))
        // feedbackd's per-app profile caps the level as [apps] does.
        manager.setDesktop(DesktopState(appProfiles: ["org.example.Q": .quiet]))
        XCTAssertEqual(trigger("e", PlayRequest(.name("e"), app: "org.example.Q"))?.vibration, try HapticPattern(parsing: "0.5:20"))
    }

    func testAReloadAppliesTheStrengthCap() throws {
        var configuration = manager.configuration
        configuration.haptics.strengthCap = 0.5
        manager.reload(configuration: configuration, theme: manager.theme)
        XCTAssertTrue(eventually { self.haptics.strengthCap == 0.5 }, "max-haptic-strength (strength_cap) was not applied on reload")
        XCTAssertNotNil(manager.feedbackdTheme, "the reload dropped the feedbackd theme")
    }

    // MARK: An event's lifecycle (feedbackd's fbd-event.c), on the loop

    /// Starts `name` on the test's loop; its end (reason, seconds after the start) lands in the result.
    /// The events' registry lives as long as the test (the daemon's, as long as the daemon).
    func start(_ name: String, timeout: Int32) -> (id: UInt32, end: Locked<(EventEndReason, Double)?>, events: FeedbackEvents) {
        let end = Locked<(EventEndReason, Double)?>(nil)
        let (manager, loop) = (manager!, host.loop)
        if registry == nil {
            registry = loop.perform { UncheckedBox(FeedbackEvents(manager: manager, loop: loop, logger: RunningDaemon.logger)) }.value
        }
        let events = UncheckedBox(registry!)
        let started = MonotonicClock.now()
        let id = loop.perform { () -> UInt32 in
            events.value.trigger(name, PlayRequest(.name(name), app: "org.example.E"), timeout: EventTimeout(timeout)) { _, reason in
                end.withLock { $0 = (reason, Double(MonotonicClock.now() - started) / 1e9) }
            }.id
        }
        return (id, end, events.value)
    }

    func waitForEnd(_ end: Locked<(EventEndReason, Double)?>, seconds: Double) -> (EventEndReason, Double)? {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while end.withLock({ $0 }) == nil && MonotonicClock.now() < deadline { usleep(5_000) }
        return end.withLock { $0 }
    }

    func testADummyWithADurationRunsUntilEndedAndEndsExplicit() throws {
        let (id, end, events) = start("held", timeout: -1)
        usleep(500_000)
        XCTAssertNil(end.withLock { $0 }, "a Dummy of 10 s ended early")
        XCTAssertTrue(host.loop.perform { events.end(id) })
        XCTAssertEqual(waitForEnd(end, seconds: 2)?.0, .explicit)
        XCTAssertFalse(host.loop.perform { events.end(id) }, "an ended event is still running")
    }

    func testADummyLastsItsDurationAndEndsNatural() throws {
        let (_, end, _) = start("short", timeout: -1)
        let ended = try XCTUnwrap(waitForEnd(end, seconds: 3))
        XCTAssertEqual(ended.0, .natural)
        XCTAssertGreaterThanOrEqual(ended.1, 0.39, "the Dummy's 400 ms were cut")
        // Without a duration it is over at once, and so is its event.
        let (_, blank, _) = start("blank", timeout: 0)
        XCTAssertEqual(waitForEnd(blank, seconds: 2)?.0, .natural, "a looping event of an instant Dummy never ended")
    }

    /// Timeout 1 s over a 400 ms Dummy: it runs again at 0.4 and 0.8 s; at
    /// 1 s the run in progress is not cut, so the event ends at 1.2 s, expired.
    func testATimeoutLoopsTheFeedbacksAndEndsWithTheRunInProgress() throws {
        let (_, end, _) = start("short", timeout: 1)
        let ended = try XCTUnwrap(waitForEnd(end, seconds: 4))
        XCTAssertEqual(ended.0, .expired)
        XCTAssertGreaterThanOrEqual(ended.1, 1.19, "the run in progress at the timeout was cut")
    }

    func testAnEventWithNothingAtItsLevelIsNotFound() throws {
        state.withLock { $0 = SystemState(silent: true) }
        let (_, end, _) = start("sound-only", timeout: -1)
        XCTAssertEqual(waitForEnd(end, seconds: 2)?.0, .notFound)
    }
}

/// Carries a loop-thread object out of `perform` (it is used on the loop again).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
