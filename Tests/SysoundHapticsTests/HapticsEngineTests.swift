import SysoundCore
import SysoundPlatform
import SysoundTesting
import XCTest
@testable import SysoundHaptics
#if canImport(Glibc)
import Glibc
#endif

/// The engine on an event loop of its own, its inotify watch on a scratch
/// directory and fake devices behind the nodes.
final class HapticsEngineTests: XCTestCase {
    var dir: ScratchDirectory!
    var registry: FakeDeviceRegistry!

    override func setUpWithError() throws {
        dir = try ScratchDirectory(removedAfter: self)
        registry = FakeDeviceRegistry()
    }

    /// One loop and its workers for every engine of the suite, as a process has.
    static let host = try! LoopHost.ownThread(name: "test-haptics")

    /// A started engine, once it has opened `devices` nodes (a worker opens them).
    func makeEngine(cap: Double = 1, pins: [DevicePin] = [], devices: Int = 1, preload: [String] = []) throws -> HapticsEngine {
        let engine = try HapticsEngine(
            strengthCap: cap, deviceDirectory: dir.path, pins: pins, opener: registry.opener, host: Self.host, logger: quietLogger())
        engine.preload(presets: preload)
        try engine.start()
        addTeardownBlock { engine.shutdown() }
        XCTAssertTrue(eventually { engine.devices.count == devices }, "\(engine.devices.count) devices, expected \(devices)")
        return engine
    }

    func plug(_ name: String, slots: Int = 16, deviceName: String = "fake rumble", rumble: Bool = true)
        -> FakeForceFeedbackDevice
    {
        let device = FakeForceFeedbackDevice(path: dir.path + "/" + name, capabilities: ForceFeedbackCapabilities(
            name: deviceName, rumble: rumble, gain: true, effectSlots: slots))
        registry.add(device)
        dir.touch(name)
        return device
    }

    func testFindsPresentDevicesAndIgnoresOthers() throws {
        let rumble = plug("event3")
        _ = plug("event4", rumble: false)
        dir.touch("mouse0")  // not an event node: never opened
        let engine = try makeEngine()
        XCTAssertTrue(eventually { registry.opens.count == 2 })
        XCTAssertEqual(engine.devices.map(\.path), [rumble.path])
        XCTAssertFalse(registry.opens.contains(dir.path + "/mouse0"))
    }

    func testSchedulingAccuracyOnTheMonotonicClock() throws {
        let device = plug("event0")
        let engine = try makeEngine()
        let steps = (0..<12).map { "\($0 % 2 == 0 ? 1.0 : 0.0):\(15 + 5 * ($0 % 3))" }.joined(separator: ",")
        let p = pattern(steps)
        let start = MonotonicClock.now()
        try engine.vibrate(pattern: p)
        XCTAssertTrue(eventually(3000) { !engine.isVibrating })
        // Each step starts with a play (on) or a stop (off); the last step is
        // off, so nothing happens at the very end.
        var expected: [UInt64] = []
        var offset = 0
        for step in p.steps {
            expected.append(UInt64(offset) * 1_000_000)
            offset += step.durationMs
        }
        let events = device.records.filter {
            switch $0.operation { case .play, .stop: true; default: false }
        }.map { $0.time - start }
        XCTAssertEqual(events.count, expected.count, "a play or a stop per step")
        let errors = zip(events, expected).map { abs(Double(Int64($0) - Int64($1))) / 1e6 }.sorted()
        let median = errors[errors.count / 2]
        XCTAssertLessThanOrEqual(median, 2.0, "median step error \(median) ms; errors \(errors)")
        XCTAssertLessThanOrEqual(errors.last ?? 0, 25.0, "worst step error; errors \(errors)")
    }

    /// A vibration given a delay (a haptic paired with a sound, started
    /// when the sound is heard) plays its first step by the loop's timer that
    /// much after the request, and its later steps on that schedule; one
    /// without plays before `vibrate` returns.
    func testADelayedVibrationStartsByItsTimerAndAnImmediateOneAtOnce() throws {
        let device = plug("event0")
        let engine = try makeEngine()
        let p = pattern("1:20,0:10,0.5:10")
        try engine.vibrate(pattern: p)  // uploads its effects on the workers, then plays at once
        XCTAssertTrue(eventually { !engine.isUploading && !engine.isVibrating })
        func plays() -> [UInt64] { device.records.compactMap { if case .play = $0.operation { $0.time } else { nil } } }

        var before = plays().count
        var asked = MonotonicClock.now()
        try engine.vibrate(pattern: p)
        var returned = MonotonicClock.now()
        XCTAssertEqual(plays().count, before + 1, "the first step is written before vibrate returns")
        XCTAssertTrue((asked...returned).contains(plays()[before]))
        XCTAssertTrue(eventually { !engine.isVibrating })

        let delay: UInt64 = 150_000_000
        before = plays().count
        asked = MonotonicClock.now()
        try engine.vibrate(pattern: p, delayNanoseconds: delay)
        returned = MonotonicClock.now()
        XCTAssertTrue(engine.isVibrating, "a delayed vibration counts as playing (priority) from the request")
        XCTAssertTrue(eventually { plays().count == before + 2 && !engine.isVibrating })
        let delayed = Array(plays()[before...])
        XCTAssertGreaterThanOrEqual(delayed[0], returned, "nothing is written before vibrate returns")
        XCTAssertGreaterThanOrEqual(delayed[0], asked + delay, "the first step waits for its delay")
        XCTAssertGreaterThanOrEqual(delayed[1], asked + delay + 30_000_000, "the later steps keep the pattern's schedule from there")
    }

    func testPresetsAndErrors() throws {
        let device = plug("event0")
        let engine = try makeEngine()
        try engine.vibrate(preset: "heavy", intensity: 0.5)
        XCTAssertTrue(eventually { device.plays.map(\.strong) == [strong(0.5)] }, "played once uploaded")
        XCTAssertThrowsError(try engine.vibrate(preset: "thud")) {
            guard case .unknownPreset("thud", let known) = $0 as? HapticsError else { return XCTFail("\($0)") }
            XCTAssertTrue(known.contains("success"))
        }
        XCTAssertThrowsError(try engine.vibrate(preset: "tap", intensity: 1.5)) {
            XCTAssertEqual($0 as? HapticsError, .invalidLevel(name: "intensity", value: 1.5))
        }
        XCTAssertThrowsError(try engine.vibrate(pattern: HapticPattern(steps: [HapticStep(magnitude: 1, durationMs: 0)]))) {
            XCTAssertEqual($0 as? HapticsError, .invalidPattern("step 1 lasts 0 ms; expected 1–10000"))
        }
        XCTAssertThrowsError(try engine.setStrengthCap(.nan))
    }

    func testHapticsSwitchThroughThePolicy() throws {
        let device = plug("event0")
        let engine = try makeEngine()
        let off = SystemState(haptics: false)
        XCTAssertEqual(try engine.vibrate(preset: "tap", state: off), .hapticsOff)
        XCTAssertEqual(device.plays.count, 0)
        // Silent mode does not stop haptics.
        XCTAssertNil(try engine.vibrate(preset: "tap", state: SystemState(silent: true)))
        XCTAssertTrue(eventually { device.plays.count == 1 })
    }

    func testHotplugAddAndRemoveMidPattern() throws {
        let first = plug("event0")
        let engine = try makeEngine()
        try engine.vibrate(pattern: pattern("1:40,0.5:40,0.25:40"))
        let second = plug("event1")
        XCTAssertTrue(eventually { engine.devices.count == 2 }, "the new node was picked up")
        XCTAssertTrue(eventually { second.plays.count >= 1 }, "the new device joins the running pattern")
        dir.remove("event0")
        XCTAssertTrue(eventually { engine.devices.map(\.path) == [second.path] })
        XCTAssertTrue(eventually { first.isClosed }, "closed on a worker")
        XCTAssertTrue(eventually { !engine.isVibrating })
        XCTAssertEqual(second.plays.last?.strong, strong(0.25), "the pattern went on on the other device")
        dir.remove("event1")
        XCTAssertTrue(eventually { engine.devices.isEmpty })
        XCTAssertThrowsError(try engine.vibrate(preset: "tap")) { XCTAssertEqual($0 as? HapticsError, .noDevice) }
    }

    func testUnpluggedDeviceFailsQuietly() throws {
        let device = plug("event0")
        let engine = try makeEngine()
        try engine.vibrate(pattern: pattern("1:20,0:20,1:20"))
        device.unplug()  // ENODEV on the next write, node still there
        XCTAssertTrue(eventually { engine.devices.isEmpty })
        XCTAssertThrowsError(try engine.vibrate(preset: "tap")) { XCTAssertEqual($0 as? HapticsError, .noDevice) }
    }

    func testNodeThatIsNotReadableYetIsOpenedWhenItsPermissionsChange() throws {
        let engine = try makeEngine(devices: 0)
        registry.deny(dir.path + "/event7")
        _ = plug("event7")
        XCTAssertTrue(eventually(500) { registry.opens.contains(dir.path + "/event7") })
        XCTAssertTrue(engine.devices.isEmpty)
        registry.deny(dir.path + "/event7", false)
        chmod(dir.path + "/event7", 0o660)  // IN_ATTRIB, as udev does
        XCTAssertTrue(eventually { engine.devices.count == 1 })
    }

    func testNodeThatAppearsBeforeItsDriverIsReadyIsRetried() throws {
        let engine = try makeEngine(devices: 0)
        dir.touch("event5")  // opening says ENODEV: the registry has no device yet
        XCTAssertTrue(eventually(500) { registry.opens.contains(dir.path + "/event5") })
        registry.add(FakeForceFeedbackDevice(path: dir.path + "/event5"))  // no inotify event this time
        XCTAssertTrue(eventually { engine.devices.count == 1 }, "found by the retry")
    }

    func testDirectoryThatAppearsLater() throws {
        let parent = dir.path
        let engine = try HapticsEngine(deviceDirectory: parent + "/input", opener: registry.opener, host: Self.host, logger: quietLogger())
        try engine.start()
        defer { engine.shutdown() }
        mkdir(parent + "/input", 0o755)
        let device = FakeForceFeedbackDevice(path: parent + "/input/event0")
        registry.add(device)
        close(open(parent + "/input/event0", O_CREAT | O_WRONLY, 0o600))
        XCTAssertTrue(eventually { engine.devices.count == 1 })
        unlink(parent + "/input/event0")
        rmdir(parent + "/input")
    }

    func testPinsByNameAndPath() throws {
        let phone = plug("event1", deviceName: "gpio-vibrator")
        let pad = plug("event2", deviceName: "Xbox Wireless Controller")
        let byName = try makeEngine(pins: [DevicePin("*vibrator*")])
        XCTAssertEqual(byName.devices.map(\.path), [phone.path])
        symlink(pad.path, dir.path + "/by-id-pad")
        let byPath = try makeEngine(pins: [DevicePin(dir.path + "/by-id-pad")])
        XCTAssertEqual(byPath.devices.map(\.path), [pad.path])
        XCTAssertTrue(eventually { self.registry.opens.count >= 4 })
        XCTAssertEqual(byName.devices.map(\.path), [phone.path], "the pad was opened and not taken")
    }

    func testStrengthCapChangesGain() throws {
        let device = plug("event0")
        let engine = try makeEngine(cap: 0.8)
        XCTAssertEqual(device.gain, 52428, "set when the device was taken")
        try engine.setStrengthCap(0.5)
        XCTAssertEqual(device.gain, 32768)
        XCTAssertEqual(engine.strengthCap, 0.5)
    }

    func testRequestsBeforeStartOrAfterShutdown() throws {
        let engine = try HapticsEngine(deviceDirectory: nil, opener: registry.opener, host: Self.host, logger: quietLogger())
        XCTAssertTrue(engine.attach(FakeForceFeedbackDevice(path: "fake")))
        XCTAssertThrowsError(try engine.vibrate(preset: "tap")) { XCTAssertEqual($0 as? HapticsError, .notRunning) }
        try engine.start()
        try engine.vibrate(preset: "tap")
        engine.shutdown()
        XCTAssertThrowsError(try engine.vibrate(preset: "tap")) { XCTAssertEqual($0 as? HapticsError, .notRunning) }
    }

    // MARK: Uploads on the workers

    /// The presets in use reach a device when it appears, before any request,
    /// so their first play is a write and nothing else.
    func testPresetsInUseAreUploadedWhenADeviceAppears() throws {
        let engine = try makeEngine(devices: 0, preload: ["tap", "success"])
        let device = plug("event0")
        // tap is one effect, success two (0.7 for 25 ms, 1.0 for 35 ms).
        XCTAssertTrue(eventually { device.uploadCount == 3 }, "uploads: \(device.uploadCount)")
        XCTAssertEqual(device.plays.count, 0, "uploaded, not played")
        try engine.vibrate(preset: "tap", whenNotUploaded: .skip)
        XCTAssertTrue(eventually { device.plays.count == 1 })
        XCTAssertEqual(device.uploadCount, 3, "the tap was a play write, no upload")
    }

    /// A request handled on the loop thread (the daemon's) writes its play
    /// before it returns: no thread hop between the request and the device.
    func testARequestOnTheLoopWritesItsPlayBeforeItReturns() throws {
        let device = plug("event0")
        let engine = try makeEngine(preload: ["tap"])
        XCTAssertTrue(eventually { device.uploadCount == 1 })
        let plays: Int = Self.host.loop.perform {
            try? engine.vibrate(preset: "tap", whenNotUploaded: .skip)
            return device.plays.count
        }
        XCTAssertEqual(plays, 1)
    }

    /// While a driver holds an upload, a request that must not wait (a haptic
    /// paired with a sound) is skipped at once with a typed reason; once the
    /// upload lands the same request plays.
    func testARequestThatMustNotWaitIsSkippedWhileItsUploadIsInFlight() throws {
        let engine = try makeEngine(devices: 0, preload: ["tap"])
        let device = FakeForceFeedbackDevice(path: dir.path + "/event0")
        device.blockUploads(seconds: 0.6)
        registry.add(device)
        dir.touch("event0")
        XCTAssertTrue(eventually { engine.devices.count == 1 })
        let start = MonotonicClock.now()
        XCTAssertThrowsError(try engine.vibrate(preset: "tap", whenNotUploaded: .skip)) {
            XCTAssertEqual($0 as? HapticsError, .notUploaded)
        }
        XCTAssertLessThan(MonotonicClock.now() - start, 300_000_000, "answered without waiting for the driver")
        XCTAssertTrue(eventually(3000) { device.uploadCount == 1 }, "the upload went on")
        try engine.vibrate(preset: "tap", whenNotUploaded: .skip)
        XCTAssertTrue(eventually { device.plays.count == 1 })
    }

    /// A vibration asked for on its own starts when its upload lands, within
    /// the wait limit, and the request answers once it has started; one whose
    /// upload takes longer is dropped, not played late, and says so.
    /// A delayed vibration of a pattern not uploaded yet (a haptic score
    /// paired with its sounds): an upload that lands before the start keeps
    /// the start; one that lands after it starts the vibration then.
    func testADelayedVibrationThatWaitsForItsUploadKeepsItsStart() throws {
        let device = plug("event0")
        let engine = try makeEngine()
        func plays() -> [UInt64] { device.records.compactMap { if case .play = $0.operation { $0.time } else { nil } } }
        let delay: UInt64 = 150_000_000
        device.blockUploads(seconds: 0.05)
        var asked = MonotonicClock.now()
        try engine.vibrate(pattern: pattern("1:20,0:10,0.5:10"), delayNanoseconds: delay)
        XCTAssertTrue(eventually { plays().count == 2 && !engine.isVibrating }, "\(plays().count) plays")
        let first = try XCTUnwrap(plays().first)
        XCTAssertGreaterThanOrEqual(first, asked + delay, "landed after 50 ms: the first step still waits for its start")
        XCTAssertLessThan(first, asked + delay + 40_000_000, "and plays at it")

        device.blockUploads(seconds: 0.25)
        asked = MonotonicClock.now()
        try engine.vibrate(pattern: pattern("0.8:30"), delayNanoseconds: delay)
        XCTAssertTrue(eventually { plays().count == 3 && !engine.isVibrating }, "\(plays().count) plays")
        let late = try XCTUnwrap(plays().dropFirst(2).first)
        XCTAssertGreaterThanOrEqual(late, asked + 250_000_000, "landed after its start: it plays when it lands")
    }

    func testARequestThatMayWaitStartsWhenItsUploadLandsOrIsDropped() throws {
        let device = plug("event0")
        let engine = try makeEngine()
        device.blockUploads(seconds: 0.15)
        let start = MonotonicClock.now()
        try engine.vibrate(preset: "heavy")
        XCTAssertEqual(device.plays.count, 1, "answered once it played")
        let delay = (device.plays[0].time - start) / 1_000_000
        XCTAssertGreaterThanOrEqual(delay, 150, "started after the upload, \(delay) ms")

        device.blockUploads(seconds: Double(HapticsEngine.uploadWaitLimitMs) / 1000 + 0.3)
        XCTAssertThrowsError(try engine.vibrate(preset: "medium"), "not 'vibrated' for nothing") {
            XCTAssertEqual($0 as? HapticsError, .notUploaded)
        }
        XCTAssertTrue(eventually(3000) { device.uploadCount == 2 }, "the upload landed")
        MonotonicClock.sleep(ms: 50)
        XCTAssertEqual(device.plays.count, 1, "too late to read as the answer: dropped")
        XCTAssertFalse(engine.isVibrating)
    }

    /// A node can appear a moment before its driver takes requests (uinput
    /// answers ENODEV until UI_DEV_CREATE returns): the upload is tried again
    /// shortly, and the device stays in use meanwhile (its gain set once).
    func testUploadsToADeviceNotReadyYetAreRetried() throws {
        let engine = try makeEngine(devices: 0, preload: ["tap"])
        let device = FakeForceFeedbackDevice(path: dir.path + "/event0")
        device.answerUploadsNotReady(3)
        registry.add(device)
        dir.touch("event0")
        XCTAssertTrue(eventually { device.uploadCount == 1 }, "uploaded after the driver became ready")
        XCTAssertEqual(engine.devices.count, 1)
        XCTAssertEqual(registry.opens.filter { $0 == device.path }.count, 1, "not reopened")
        XCTAssertEqual(device.records.filter { if case .gain = $0.operation { true } else { false } }.count, 1)
        try engine.vibrate(preset: "tap", whenNotUploaded: .skip)
        XCTAssertTrue(eventually { device.plays.count == 1 })
    }
}
