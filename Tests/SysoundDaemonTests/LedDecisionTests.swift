import Foundation
import SysoundConfig
import SysoundCore
import SysoundFeedback
import SysoundLeds
import SysoundPlatform
import SysoundState
import SysoundTestSupport
import XCTest

/// What the manager decides about lights: a theme's `Led` while its event
/// runs (also with the screen locked), the flash for alerts always or in
/// silent mode only. The real manager and LED engine on a directory tree
/// shaped like sysfs (the kernel's own LEDs: Tests/kernel).
final class LedDecisionTests: XCTestCase {
    static let theme = """
        {"name": "t", "profiles": [
          {"name": "full", "feedbacks": [{"event-name": "msg", "type": "Sound", "effect": "notification"}]},
          {"name": "silent", "feedbacks": [
            {"event-name": "missed", "type": "Led", "color": "blue", "frequency": 2000, "priority": 2},
            {"event-name": "caution", "type": "Led", "color": "red", "priority": 5}]}]}
        """

    var state = Locked(SystemState())
    var manager: FeedbackManager!
    var host: LoopHost!
    var registry: FeedbackEvents?
    var root = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        root = makeTemporaryDirectory()
        for (name, max) in [("white:status", 1), ("white:flash", 7)] {
            let dir = root + "/sys/class/leds/" + name
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (attribute, value) in [("max_brightness", "\(max)"), ("trigger", "none [pattern]"), ("pattern", ""), ("repeat", "-1")] {
                try value.write(toFile: dir + "/" + attribute, atomically: true, encoding: .utf8)
            }
        }
        let host = try LoopHost.ownThread(name: "test-led-decisions")
        self.host = host
        let leds = LedEngine(discovery: LedDiscovery(paths: LedPaths(root: root)), host: host, logger: RunningDaemon.logger)
        leds.start()
        let (configuration, theme, _) = try ServiceSetup.load(configPath: nil)
        let directory = StateDirectory(path: root + "/state")
        let state = state
        manager = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: directory, audio: .loopback,
            haptics: nil, leds: leds, settings: .read { state.withLock { $0 } }, host: host, logger: RunningDaemon.logger)
        let file = root + "/t.json"
        try Self.theme.write(toFile: file, atomically: true, encoding: .utf8)
        XCTAssertFalse(manager.loadFeedbackdTheme(environment: ["FEEDBACK_THEME": file, "XDG_DATA_DIRS": "/nonexistent"]).containsErrors)
        addTeardownBlock { [manager, root] in
            leds.shutdown()
            manager?.audio?.shutdown()
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    /// Starts event `name` on the loop as the D-Bus face does; its end reason lands in the result.
    func start(_ name: String, timeout: Int32 = -1) -> (id: UInt32, end: Locked<EventEndReason?>, events: FeedbackEvents) {
        let end = Locked<EventEndReason?>(nil)
        let (manager, loop) = (manager!, host.loop)
        if registry == nil {
            registry = loop.perform { UncheckedBox(FeedbackEvents(manager: manager, loop: loop, logger: RunningDaemon.logger)) }.value
        }
        let events = UncheckedBox(registry!)
        let id = loop.perform { () -> UInt32 in
            events.value.trigger(name, PlayRequest(.name(name), app: "org.example.E"), timeout: EventTimeout(timeout)) { _, reason in
                end.withLock { $0 = reason }
            }.id
        }
        return (id, end, events.value)
    }

    func waitFor(_ condition: () -> Bool) -> Bool {
        let deadline = Date() + 3
        while !condition() && Date() < deadline { usleep(5_000) }
        return condition()
    }

    func read(_ led: String, _ attribute: String) -> String {
        (try? String(contentsOfFile: "\(root)/sys/class/leds/\(led)/\(attribute)", encoding: .utf8)) ?? "<missing>"
    }

    /// feedbackd's LED feedback never ends by itself: a `Led` event (timeout
    /// -1) runs until EndFeedback, also with the screen locked.
    func testATheLedShowsWhileItsEventRunsAndTheLockDoesNotHoldItBack() throws {
        state.withLock { $0 = SystemState(silent: true, locked: true) }
        let missed = start("missed")
        XCTAssertEqual(read("white:status", "pattern"), "1 250 1 0 0 250 0 0\n", "2000 mHz")
        usleep(300_000)
        XCTAssertNil(missed.end.withLock { $0 }, "an LED event ended by itself")
        let caution = start("caution")
        XCTAssertEqual(read("white:status", "pattern"), "1 1 1 0\n", "the higher priority, steady")
        XCTAssertTrue(host.loop.perform { caution.events.end(caution.id) })
        XCTAssertTrue(waitFor { caution.end.withLock { $0 } == .explicit })
        XCTAssertEqual(read("white:status", "pattern"), "1 250 1 0 0 250 0 0\n", "back to the one still running")
        XCTAssertTrue(host.loop.perform { missed.events.end(missed.id) })
        XCTAssertTrue(waitFor { missed.end.withLock { $0 } == .explicit })
        XCTAssertEqual(read("white:status", "pattern"), "0 1 0 0\n", "off when no event holds it")
    }

    /// A timeout ends an LED event, expired, and the light with it.
    func testATimeoutEndsTheLed() throws {
        let missed = start("missed", timeout: 1)
        XCTAssertEqual(read("white:status", "pattern"), "1 250 1 0 0 250 0 0\n")
        XCTAssertTrue(waitFor { missed.end.withLock { $0 } == .expired })
        XCTAssertEqual(read("white:status", "pattern"), "0 1 0 0\n")
    }

    func testTheFlashForAlertsInSilentMode() throws {
        let alert = PlayRequest(.name("notification"), app: "org.example.Chat")
        state.withLock { $0 = SystemState(flash: .silent) }
        XCTAssertFalse(try manager.play(alert).flashed, "not silent: no flash")
        XCTAssertEqual(read("white:flash", "pattern"), "", "never written")
        state.withLock { $0 = SystemState(silent: true, flash: .silent) }
        XCTAssertFalse(try manager.play(PlayRequest(.name("tap"))).flashed, "a tap is no alert")
        let played = try manager.play(alert)
        XCTAssertTrue(played.flashed)
        XCTAssertEqual(FeedbackManager.fields(of: played)["flash"], "1")
        XCTAssertEqual(read("white:flash", "pattern"), "7 125 7 0 0 125 0 0\n", "a burst on the flash LED")
        XCTAssertEqual(read("white:flash", "repeat"), "4\n", "bounded: four blinks")
        XCTAssertEqual(read("white:status", "pattern"), "", "the status LED is left alone")
        state.withLock { $0 = SystemState(flash: .on) }
        XCTAssertTrue(try manager.play(alert).flashed, "on: also when not silent")
        state.withLock { $0 = SystemState(silent: true, flash: .off) }
        XCTAssertFalse(try manager.play(alert).flashed)
    }

    /// A D-Bus event plays no sound in silent mode, yet flashes as its sound's category (alert) says.
    func testADBusEventFlashesInSilentModeWithoutItsSound() throws {
        state.withLock { $0 = SystemState(silent: true, flash: .off) }
        let quiet = start("msg")
        XCTAssertTrue(waitFor { quiet.end.withLock { $0 } == .notFound }, "nothing at this level")
        XCTAssertEqual(read("white:flash", "pattern"), "", "flash off: never written")
        state.withLock { $0 = SystemState(silent: true, flash: .silent) }
        let flashed = start("msg")
        XCTAssertTrue(waitFor { flashed.end.withLock { $0 } == .natural })
        XCTAssertEqual(read("white:flash", "repeat"), "4\n")
    }

    /// Without a light an event of LEDs alone is left to sysound's own names
    /// (its plan is nil), as before LEDs; with one it is the theme's.
    func testAnLedOnlyEventWithoutALightIsLeftToSysoundsNames() throws {
        let request = PlayRequest(.name("missed"), app: "org.example.Chat")
        XCTAssertEqual(manager.eventPlan("missed", request)?.feedbacks.count, 1)
        let (configuration, theme, _) = try ServiceSetup.load(configPath: nil)
        let dark = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: StateDirectory(path: root + "/state"), audio: .loopback,
            haptics: nil, leds: nil, settings: .read { SystemState() }, logger: RunningDaemon.logger)
        XCTAssertFalse(dark.loadFeedbackdTheme(environment: ["FEEDBACK_THEME": root + "/t.json", "XDG_DATA_DIRS": "/nonexistent"]).containsErrors)
        XCTAssertNil(dark.eventPlan("missed", request))
        XCTAssertNotNil(dark.eventPlan("msg", request), "an event with a sound is the theme's")
        dark.audio?.shutdown()
    }

    func testStatusListsEveryLight() throws {
        guard case .ok(let fields, let records) = manager.handle(.status) else { return XCTFail("status failed") }
        XCTAssertEqual(fields["leds"], "2")
        XCTAssertEqual(fields["flash"], "off")
        let status = try XCTUnwrap(records.first { $0["led"] == "white:status" })
        XCTAssertEqual(status["role"], "status")
        XCTAssertEqual(status["shows"], "off")
        XCTAssertEqual(records.first { $0["led"] == "white:flash" }?["role"], "flash")
    }
}
