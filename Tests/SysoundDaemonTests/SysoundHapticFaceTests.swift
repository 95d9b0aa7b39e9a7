import Foundation
import SysoundConfig
import SysoundCore
import SysoundDaemon
import SysoundFeedback
import SysoundHaptics
import SysoundPlatform
import SysoundState
import SysoundTestSupport
import SysoundTesting
import XCTest

/// `org.sysound.Haptic1` felt: the D-Bus face in this process, on the
/// private session bus, with a fake rumble device (the daemon's end-to-end
/// tests have no vibrator, so there every valid call answers false), called
/// with busctl as any client would. A preset of Android's vocabulary and a
/// composition reach the motor; the policy (the haptics switch, the app's
/// level) turns them away as it does `Vibrate`.
final class SysoundHapticFaceTests: XCTestCase {
    static let config = """
        [apps."org.example.Silent"]
        profile = "silent"
        """

    var state = Locked(SystemState())
    var rumble: FakeForceFeedbackDevice!
    var host: LoopHost!
    var manager: FeedbackManager!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try SessionMock.require()
        let root = makeTemporaryDirectory()
        try Self.config.write(toFile: root + "/sysound.toml", atomically: true, encoding: .utf8)
        let (configuration, theme, _) = try ServiceSetup.load(configPath: root + "/sysound.toml")
        let host = try LoopHost.ownThread(name: "test-haptic-face")
        self.host = host
        let haptics = try HapticsEngine(presets: configuration.haptics.presets, deviceDirectory: nil, host: host, logger: RunningDaemon.logger)
        rumble = FakeForceFeedbackDevice(path: "/dev/input/event-haptic-face")
        XCTAssertTrue(haptics.attach(rumble))
        try haptics.start()
        let state = state
        let manager = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: StateDirectory(path: root + "/state"), audio: .loopback,
            haptics: haptics, settings: .read { state.withLock { $0 } }, host: host, logger: RunningDaemon.logger)
        self.manager = manager
        let events = FeedbackEvents(manager: manager, loop: host.loop, logger: RunningDaemon.logger)
        let bus = BusConnection(loop: host.loop, open: { () throws(BusError) in try Bus.open(.user) })
        let service = host.loop.perform {
            FeedbackBusService.start(manager: manager, events: events, sessionBus: bus, watcher: nil, logger: RunningDaemon.logger)
        }
        addTeardownBlock {
            host.loop.perform {
                service?.stop()
                bus.stop()
            }
            haptics.shutdown()
            manager.audio?.shutdown()
            try? FileManager.default.removeItem(atPath: root)
        }
        XCTAssertTrue(eventually(10) { self.servedHere() }, "this process never took org.sigxcpu.Feedback on the private bus")
    }

    /// Whether the name's owner is this process (not a daemon another test left queued).
    func servedHere() -> Bool {
        (try? Spawned.run("/usr/bin/busctl", ["--user", "status", "--no-pager", "org.sigxcpu.Feedback"]).stdout.contains("PID=\(getpid())\n")) == true
    }

    func call(_ method: String, _ app: String, _ text: String, intensity: Double = 1) throws -> String {
        let result = try Spawned.run("/usr/bin/busctl", [
            "--user", "call", "org.sigxcpu.Feedback", "/org/sigxcpu/Feedback", "org.sysound.Haptic1", method, "ssd", app, text, "\(intensity)",
        ], timeout: 20)
        return result.status == 0 ? result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : "error: " + result.stderr
    }

    /// How many plays the motor was given.
    var plays: Int { rumble.records.filter { if case .play = $0.operation { true } else { false } }.count }

    func testAnAndroidMomentAndACompositionAreFelt() throws {
        XCTAssertEqual(try call("VibratePreset", "org.example.App", "confirm"), "b true")
        XCTAssertEqual(plays, 1, "confirm was answered true but never played: \(rumble.records)")
        XCTAssertEqual(try call("VibratePreset", "org.example.App", "light", intensity: 0.5), "b true", "an iOS-named preset")
        XCTAssertEqual(plays, 2)
        XCTAssertEqual(try call("VibrateComposition", "org.example.App", "click,tick:0.5@40,quick-rise"), "b true")
        XCTAssertEqual(plays, 3, "the composition was answered true but never played: \(rumble.records)")
    }

    func testThePolicyTurnsThemAwayAsItDoesVibrate() throws {
        XCTAssertEqual(try call("VibratePreset", "org.example.Silent", "confirm"), "b false", "an app whose level is silent")
        XCTAssertEqual(try call("VibrateComposition", "org.example.Silent", "click"), "b false")
        state.withLock { $0.haptics = false }
        XCTAssertEqual(try call("VibratePreset", "org.example.App", "confirm"), "b false", "haptics off")
        XCTAssertEqual(try call("VibrateComposition", "org.example.App", "click"), "b false")
        XCTAssertEqual(plays, 0, "\(rumble.records)")
        state.withLock { $0.haptics = true }
        XCTAssertEqual(try call("VibratePreset", "org.example.App", "confirm"), "b true", "haptics back on")
    }

    /// The strongest magnitude uploaded from record `start` on; nil when nothing was.
    func strongestUpload(from start: Int) -> UInt16? {
        rumble.records[start...].compactMap { if case .upload(_, let effect, _) = $0.operation { effect.strongMagnitude } else { nil } }.max()
    }

    /// The desktop's strength cap (feedbackd's `max-haptic-strength`) scales
    /// these calls as it scales every vibration; its per-app profile turns them away.
    func testTheDesktopsStrengthCapAndAppProfilesApply() throws {
        var start = rumble.records.count
        XCTAssertEqual(try call("VibrateComposition", "org.example.App", "click"), "b true")
        let full = try XCTUnwrap(strongestUpload(from: start), "\(rumble.records)")
        manager.setDesktop(DesktopState(appProfiles: ["org.example.Muted": .silent], maxHapticStrength: 0.5))
        start = rumble.records.count
        XCTAssertEqual(try call("VibrateComposition", "org.example.App", "click"), "b true")
        let capped = try XCTUnwrap(strongestUpload(from: start), "the capped click was not uploaded anew: \(rumble.records)")
        XCTAssertEqual(Double(capped), Double(full) / 2, accuracy: Double(full) * 0.06, "max-haptic-strength 0.5 did not halve the click")
        XCTAssertEqual(try call("VibratePreset", "org.example.Muted", "confirm"), "b false", "an app the desktop's profile silences")
    }
}
