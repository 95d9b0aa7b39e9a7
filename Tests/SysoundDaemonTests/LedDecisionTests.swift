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

    func read(_ led: String, _ attribute: String) -> String {
        (try? String(contentsOfFile: "\(root)/sys/class/leds/\(led)/\(attribute)", encoding: .utf8)) ?? "<missing>"
    }

    func testATheLedShowsWhileItsEventRunsAndTheLockDoesNotHoldItBack() throws {
        state.withLock { $0 = SystemState(silent: true, locked: true) }
        let missed = try XCTUnwrap(manager.triggerEvent("missed", PlayRequest(.name("missed"), app: "org.example.Chat")))
        XCTAssertTrue(missed.found)
        let missedLed = try XCTUnwrap(missed.led)
        XCTAssertEqual(read("white:status", "pattern"), "1 250 1 0 0 250 0 0\n", "2000 mHz")
        let caution = try XCTUnwrap(manager.triggerEvent("caution", PlayRequest(.name("caution"), app: "org.example.Power"))?.led)
        XCTAssertEqual(read("white:status", "pattern"), "1 1 1 0\n", "the higher priority, steady")
        manager.endEventLed(caution)
        XCTAssertEqual(read("white:status", "pattern"), "1 250 1 0 0 250 0 0\n", "back to the one still running")
        manager.endEventLed(missedLed)
        XCTAssertEqual(read("white:status", "pattern"), "0 1 0 0\n", "off when no event holds it")
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
        state.withLock { $0 = SystemState(silent: true, flash: .silent) }
        let event = try XCTUnwrap(manager.triggerEvent("msg", PlayRequest(.name("msg"), app: "org.example.Chat")))
        XCTAssertNil(event.voice)
        XCTAssertTrue(event.flashed)
        XCTAssertEqual(read("white:flash", "repeat"), "4\n")
        state.withLock { $0 = SystemState(silent: true, flash: .off) }
        XCTAssertFalse(try XCTUnwrap(manager.triggerEvent("msg", PlayRequest(.name("msg"), app: "org.example.Chat"))).flashed)
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
