import SysoundCore
import SysoundPlatform
import XCTest
@testable import SysoundHaptics
import SysoundTesting
#if canImport(Glibc)
import Glibc
#endif

/// Which device vibrates, what it plays, and what a refusal answers.
final class HapticsDeviceChoiceTests: XCTestCase {
    var dir: ScratchDirectory!
    var registry: FakeDeviceRegistry!
    static let host = try! LoopHost.ownThread(name: "test-choice")

    override func setUpWithError() throws {
        dir = try ScratchDirectory(removedAfter: self)
        registry = FakeDeviceRegistry()
    }

    func engine(
        choice: DeviceChoice = .builtIn, profile: ProfileChoice? = nil, opened: Int, used: Int, preload: [String] = []
    ) throws -> HapticsEngine {
        let engine = try HapticsEngine(
            deviceDirectory: dir.path, choice: choice, profile: profile, opener: registry.opener, host: Self.host,
            logger: quietLogger())
        engine.preload(presets: preload)
        try engine.start()
        addTeardownBlock { engine.shutdown() }
        XCTAssertTrue(eventually { engine.deviceReport.count == opened && engine.devices.count == used },
                      "report \(engine.deviceReport), used \(engine.devices.count)")
        return engine
    }

    func plug(_ node: String, _ caps: ForceFeedbackCapabilities) -> FakeForceFeedbackDevice {
        let device = FakeForceFeedbackDevice(path: dir.path + "/" + node, capabilities: caps)
        registry.add(device)
        dir.touch(node)
        return device
    }

    static var pad: ForceFeedbackCapabilities {
        var c = ForceFeedbackCapabilities(name: "Microsoft X-Box 360 pad", rumble: true, periodic: true, gain: true, effectSlots: 16)
        c.sine = true  // ff-memless (xpad) lists its periodic waveforms
        c.bus = InputBits.busUSB
        c.gameController = true
        return c
    }

    static var vibrator: ForceFeedbackCapabilities {
        var c = ForceFeedbackCapabilities(name: "gpio-vibrator", rumble: true, periodic: true, gain: true, effectSlots: 16)
        c.bus = InputBits.busHost
        c.sine = true
        return c
    }

    static var da7280: ForceFeedbackCapabilities {
        // FF_RUMBLE as the kernel shows it: emulated through FF_PERIODIC sine, which da7280 lacks.
        var c = ForceFeedbackCapabilities(name: "da7280-haptic", rumble: true, periodic: true, gain: true, effectSlots: 16)
        c.constant = true
        c.custom = true
        c.bus = 0x18  // I2C
        return c
    }

    // MARK: The rules, without an engine

    func testTheBuiltInRule() {
        let builtIn = DeviceChoice.builtIn
        XCTAssertEqual(builtIn.verdict(path: "/dev/input/event3", Self.vibrator).used, true)
        XCTAssertEqual(builtIn.verdict(path: "/dev/input/event2", Self.pad).reason, "not built in: on USB (choose it with [haptics] devices)")
        var tagged = Self.pad
        tagged.feedbackdType = "vibra"
        XCTAssertEqual(builtIn.verdict(path: "p", tagged), DeviceVerdict(used: true, reason: "udev FEEDBACKD_TYPE=vibra"), "udev's word first")
        var bt = Self.vibrator
        bt.bus = InputBits.busBluetooth
        XCTAssertFalse(builtIn.verdict(path: "p", bt).used)
        var hostPad = Self.vibrator
        hostPad.gameController = true
        XCTAssertEqual(builtIn.verdict(path: "p", hostPad).reason, "game controller (choose it with [haptics] devices)")
        var customOnly = ForceFeedbackCapabilities(name: "cs40l50", rumble: true, periodic: true, gain: true, effectSlots: 16)
        customOnly.custom = true
        XCTAssertEqual(DeviceChoice.all.verdict(path: "p", customOnly).used, false, "not even with all")
        XCTAssertTrue(DeviceChoice.all.verdict(path: "p", customOnly).reason.contains("FF_CUSTOM"))
        XCTAssertEqual(DeviceChoice.all.verdict(path: "p", Self.pad).used, true)
        XCTAssertEqual(Self.da7280.effectKind, .constant)
        var sineOnly = ForceFeedbackCapabilities(name: "s", rumble: false, periodic: true, effectSlots: 4)
        sineOnly.sine = true
        XCTAssertEqual(sineOnly.effectKind, .sine)
    }

    func testGameControllerBits() {
        func pad(keys: Set<Int> = [], abs: Set<Int> = [], accel: Bool = false) -> Bool {
            InputBits.isGameController(hasKey: keys.contains, hasAbs: abs.contains, isAccelerometer: accel)
        }
        XCTAssertFalse(pad(), "a vibrator has no keys or axes")
        XCTAssertTrue(pad(keys: [0x130]), "BTN_SOUTH")
        XCTAssertTrue(pad(keys: [0x13e]), "BTN_THUMBR")
        XCTAssertTrue(pad(keys: [0x120]), "BTN_TRIGGER (joystick)")
        XCTAssertTrue(pad(keys: [0x2c0]), "BTN_TRIGGER_HAPPY1")
        XCTAssertFalse(pad(keys: [0x13f, 0x74]), "BTN_DIGI's neighbour and KEY_POWER are no pad")
        XCTAssertTrue(pad(abs: [0, 1]), "sticks")
        XCTAssertFalse(pad(keys: [0x14a], abs: [0, 1]), "a touchscreen")
        XCTAssertFalse(pad(abs: [0, 1, 2], accel: true), "an accelerometer")
        XCTAssertTrue(pad(abs: [8]), "a wheel")
    }

    func testDeviceEntries() throws {
        XCTAssertEqual(try DeviceChoice(entries: []), .builtIn)
        XCTAssertEqual(try DeviceChoice(entries: ["all"]), .all)
        XCTAssertEqual(try DeviceChoice(entries: ["gpio-vibrator", "/dev/input/event3"]), .chosen([.name("gpio-vibrator"), .path("/dev/input/event3")]))
        XCTAssertThrowsError(try DeviceChoice(entries: ["all", "x"])) { XCTAssertTrue("\($0)".contains("\"all\"")) }
        XCTAssertThrowsError(try DeviceChoice(entries: ["/tmp/x"])) { XCTAssertTrue("\($0)".contains("/tmp/x")) }
        XCTAssertThrowsError(try DeviceChoice(entries: [" "]))
    }

    func testUdevPropertiesAreReadFromTheDatabaseFile() throws {
        let db = try ScratchDirectory(removedAfter: self)
        let fd = open(db.path + "/c13:67", O_CREAT | O_WRONLY, 0o600)
        let text = "I:123\nE:ID_INPUT=1\nE:FEEDBACKD_TYPE=vibra\nG:uaccess\n"
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        // 13:67 as st_rdev encodes it.
        let dev = UInt64(13) << 8 | 67
        XCTAssertEqual(UdevProperties.value(of: "FEEDBACKD_TYPE", directory: db.path, device: dev), "vibra")
        XCTAssertNil(UdevProperties.value(of: "FEEDBACKD_TYPE", directory: db.path, device: UInt64(13) << 8 | 68))
    }

    // MARK: The engine

    /// A controller on the lower node, the built-in motor after it: UI
    /// vibrations play on the motor only, every time; with "all" on both.
    func testAGameControllerBesideTheVibratorStaysStill() throws {
        let pad = plug("event2", Self.pad)
        let motor = plug("event3", Self.vibrator)
        let engine = try engine(opened: 2, used: 1, preload: ["heavy"])
        XCTAssertEqual(engine.devices.map(\.path), [motor.path])
        for _ in 0..<2 {
            try engine.vibrate(preset: "heavy")
            XCTAssertTrue(eventually { !engine.isVibrating })
        }
        XCTAssertEqual(motor.plays.count, 2)
        XCTAssertEqual(pad.records.map(\.operation), [.close], "the controller is closed untouched")
        let report = engine.deviceReport
        XCTAssertEqual(report.map(\.used), [false, true])
        XCTAssertTrue(report[0].reason.contains("USB"), report[0].reason)
    }

    func testAllChoosesTheControllerToo() throws {
        let pad = plug("event2", Self.pad)
        let motor = plug("event3", Self.vibrator)
        let all = try engine(choice: .all, opened: 2, used: 2, preload: ["heavy"])
        XCTAssertTrue(eventually { !all.isUploading })
        try all.vibrate(preset: "heavy")
        XCTAssertTrue(eventually { pad.plays.count == 1 && motor.plays.count == 1 })
    }

    /// No FF_RUMBLE: FF_CONSTANT effects; the device refuses rumble as da7280 does.
    func testAConstantOnlyDeviceGetsConstantEffects() throws {
        let device = plug("event0", Self.da7280)
        device.refuseUploads(of: [.rumble, .sine])
        let engine = try engine(opened: 1, used: 1)
        try engine.vibrate(preset: "heavy")
        let kinds = device.records.compactMap { if case .upload(_, let e, _) = $0.operation { e.kind } else { nil } }
        XCTAssertEqual(kinds, [.constant])
        XCTAssertEqual(device.plays.count, 1)
        XCTAssertEqual(engine.deviceReport.first?.effect, .constant)
    }

    /// A device that refuses every upload: the request fails naming it, the
    /// device leaves use, and status says why.
    func testRefusedUploadsAreAnsweredTruthfully() throws {
        var caps = Self.vibrator
        caps.name = "stubborn-vibrator"
        let device = plug("event0", caps)
        device.refuseUploads()
        let engine = try engine(opened: 1, used: 1)
        XCTAssertThrowsError(try engine.vibrate(preset: "heavy")) { error in
            guard case .refused(let name, let path, let reason) = error as? HapticsError else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "stubborn-vibrator")
            XCTAssertEqual(path, device.path)
            XCTAssertTrue(reason.contains("errno 22"), reason)
        }
        XCTAssertTrue(eventually { engine.devices.isEmpty })
        XCTAssertThrowsError(try engine.vibrate(preset: "tap")) { XCTAssertTrue("\($0)".contains("stubborn-vibrator")) }
        XCTAssertEqual(engine.deviceReport.first?.used, false)
        XCTAssertTrue(engine.deviceReport.first?.reason.hasPrefix("uploads refused") ?? false)
    }

    /// A busy answer (da7280 while an effect plays) is not a refusal.
    func testABusyUploadIsNotARefusal() {
        XCTAssertFalse(DeviceError.failed(path: "p", call: "ioctl(EVIOCSFF)", errno: EBUSY).refusesEffect)
        XCTAssertTrue(DeviceError.failed(path: "p", call: "ioctl(EVIOCSFF)", errno: EINVAL).refusesEffect)
        XCTAssertFalse(DeviceError.failed(path: "p", call: "write(EV_FF play)", errno: EINVAL).refusesEffect)
    }

    // MARK: Profiles

    func testProfileSelection() throws {
        let dt = ["pine64,pinephone-1.2", "pine64,pinephone", "allwinner,sun50i-a64"]
        let chosen = try HapticProfile.choose(compatible: dt, dmiProduct: nil, configured: nil)
        XCTAssertEqual(chosen?.profile.name, "pine64-pinephone")
        XCTAssertEqual(chosen?.reason, "device-tree compatible \"pine64,pinephone\"")
        XCTAssertNil(try HapticProfile.choose(compatible: ["pine64,pinephone-pro", "rockchip,rk3399"], dmiProduct: "X", configured: nil))
        XCTAssertEqual(try HapticProfile.choose(compatible: [], dmiProduct: nil, configured: "pine64-pinephone")?.reason, "[haptics] profile")
        XCTAssertThrowsError(try HapticProfile.choose(compatible: [], dmiProduct: nil, configured: "pinefone")) {
            XCTAssertTrue("\($0)".contains("\"pinefone\"") && "\($0)".contains("pine64-pinephone"), "\($0)")
        }
        // A preset the user wrote stays theirs.
        let mine = HapticPresets.merged(["tap": pattern("1:25")])
        let merged = chosen!.profile.presets(over: mine)
        XCTAssertEqual(merged["tap"], pattern("1:25"))
        XCTAssertEqual(merged["selection"], pattern("0.4:40"))
    }

    /// The profile's presets and minimum pulse reach the uploaded lengths.
    func testAProfileChangesTheUploadedLengths() throws {
        let device = plug("event0", Self.vibrator)
        let profile = try HapticProfile.choose(compatible: ["pine64,pinephone"], dmiProduct: nil, configured: nil)
        let engine = try engine(profile: profile, opened: 1, used: 1)
        try engine.vibrate(preset: "tap")
        XCTAssertTrue(eventually { !engine.isVibrating })
        try engine.vibrate(preset: "light")
        XCTAssertEqual(device.plays.map(\.length), [80, 40], "tap from feedbackd's theme, light raised to the 40 ms minimum")
    }
}
