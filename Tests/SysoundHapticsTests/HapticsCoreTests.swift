import SysoundCore
import SysoundTesting
import XCTest
@testable import SysoundHaptics

/// The engine's decisions, driven by a hand-made clock.
final class HapticsCoreTests: XCTestCase {
    let ms: UInt64 = 1_000_000
    let t0: UInt64 = 1_000_000_000_000

    func makeCore(cap: Double = 1, _ devices: FakeForceFeedbackDevice...) -> HapticsCore {
        var core = HapticsCore(strengthCap: cap, logger: quietLogger())
        for d in devices { core.attach(d) }
        return core
    }

    func testPlanMergesEqualStepsAndAppliesIntensity() {
        let plan = PatternPlan(pattern("1:20,1:10,0:40,0:5,0.5:30"), intensity: 0.5)
        XCTAssertEqual(plan.segments, [
            .init(offsetMs: 0, durationMs: 30, magnitude: 0.5),
            .init(offsetMs: 30, durationMs: 45, magnitude: 0),
            .init(offsetMs: 75, durationMs: 30, magnitude: 0.25),
        ])
        XCTAssertEqual(plan.durationMs, 105)
    }

    /// A pulse repeating after equal gaps is one segment the kernel repeats
    /// (EV_FF value = count, replay.delay = the gap), not a timer per step.
    func testRepeatedPulsesAreLeftToTheKernel() throws {
        let plan = PatternPlan(pattern("1:30,0:40,1:30,0:40,1:30"), intensity: 1)
        XCTAssertEqual(plan.segments, [
            .init(offsetMs: 0, durationMs: 30, magnitude: 1),
            .init(offsetMs: 30, durationMs: 140, magnitude: 1, gapMs: 40, count: 2),
        ])
        XCTAssertEqual(plan.segments[1].pulseMs, 30)
        XCTAssertEqual(PatternPlan(pattern("1:30,0:40,0.5:30,0:40,1:30"), intensity: 1).segments.count, 5, "different pulses: steps")
        XCTAssertEqual(PatternPlan(pattern("1:20,0:40,1:20"), intensity: 1).segments.count, 3, "one gap: nothing to repeat")

        let d = FakeForceFeedbackDevice(path: "/dev/input/event0")
        var core = makeCore(d)
        try core.startUploaded(pattern("1:30,0:40,1:30,0:40,1:30"), intensity: 1, priority: 0, now: t0)
        XCTAssertEqual(core.nextDeadline, t0 + 30 * ms)
        core.step(now: t0 + 30 * ms)
        XCTAssertEqual(core.nextDeadline, t0 + 170 * ms, "no wake-up between the repeats")
        let repeated = d.records.compactMap { if case .playRepeated(let id, let n) = $0.operation { (id, n) } else { nil } }
        XCTAssertEqual(repeated.map(\.1), [2])
        XCTAssertEqual(d.effects[repeated[0].0]?.delayMs, 40)
        XCTAssertEqual(d.effects[repeated[0].0]?.lengthMs, 30)
        core.step(now: t0 + 170 * ms)
        XCTAssertFalse(core.isPlaying)
    }

    /// A request's effect is uploaded before the presets preloaded on speculation.
    func testARequestsEffectGoesAheadOfPreloads() {
        let d = FakeForceFeedbackDevice(path: "/dev/input/event0")
        var core = makeCore(d)
        let preloads = [0.1, 0.2, 0.3].map { RumbleEffect(magnitude: $0, lengthMs: 400) }
        core.want(preloads, on: d.path, ahead: false)
        let wanted = RumbleEffect(magnitude: 0.9, lengthMs: 15)
        core.want([preloads[2], wanted], on: d.path)
        XCTAssertEqual(core.nextUpload(on: d.path)?.upload, [preloads[2]])
        core.landed(UploadJob(device: d, erase: [], upload: [preloads[2]]).run(), on: d.path)
        XCTAssertEqual(core.nextUpload(on: d.path)?.upload, [wanted], "then the rest of the request, then the preloads")
    }

    /// The profile's minimum pulse lengthens what an ERM would not feel.
    func testMinimumPulseLengthensShortPulses() {
        let plan = PatternPlan(pattern("0.5:10,0:20,1:60"), intensity: 1, minimumPulseMs: 40)
        XCTAssertEqual(plan.segments.map(\.durationMs), [40, 20, 60])
        XCTAssertEqual(plan.durationMs, 120)
    }

    func testStepsFollowTheClock() throws {
        let d = FakeForceFeedbackDevice(path: "/dev/input/event0")
        var core = makeCore(d)
        try core.startUploaded(pattern("1:20,0:30,0.5:10"), intensity: 1, priority: 0, now: t0)
        XCTAssertEqual(d.plays.map(\.strong), [65535])
        XCTAssertEqual(core.nextDeadline, t0 + 20 * ms)
        core.step(now: t0 + 19 * ms)  // not yet due
        XCTAssertEqual(d.stops.count, 0)
        core.step(now: t0 + 20 * ms)
        XCTAssertEqual(d.stops.count, 1)
        XCTAssertEqual(core.nextDeadline, t0 + 50 * ms)
        core.step(now: t0 + 50 * ms)
        XCTAssertEqual(d.plays.map(\.strong), [65535, strong(0.5)])
        XCTAssertEqual(d.plays.map(\.length), [20, 10])
        core.step(now: t0 + 60 * ms)
        XCTAssertEqual(d.stops.count, 2)
        XCTAssertFalse(core.isPlaying)
        XCTAssertNil(core.nextDeadline)
    }

    func testLateWakeupPlaysOnlyTheCurrentStep() throws {
        let d = FakeForceFeedbackDevice(path: "/dev/input/event0")
        var core = makeCore(d)
        try core.startUploaded(pattern("1:10,0.2:10,0.4:10,0.6:10"), intensity: 1, priority: 0, now: t0)
        core.step(now: t0 + 25 * ms)  // 0.2 is already over
        XCTAssertEqual(d.plays.map(\.strong), [65535, strong(0.4)])
    }

    func testHigherOrEqualPriorityReplacesLowerIsRefused() throws {
        let d = FakeForceFeedbackDevice(path: "/dev/input/event0")
        var core = makeCore(d)
        try core.startUploaded(pattern("1:100"), intensity: 1, priority: 5, now: t0)
        XCTAssertThrowsError(try core.startUploaded(pattern("0.5:100"), intensity: 1, priority: 4, now: t0 + ms)) {
            XCTAssertEqual($0 as? HapticsError, .outranked(running: 5, requested: 4))
        }
        try core.startUploaded(pattern("0.5:100"), intensity: 1, priority: 5, now: t0 + 2 * ms)
        XCTAssertEqual(d.plays.map(\.strong), [65535, strong(0.5)])
        XCTAssertEqual(d.stops.count, 1, "the replaced effect was stopped")
        core.stop()
        XCTAssertEqual(d.stops.count, 2)
        XCTAssertFalse(core.isPlaying)
        // Once it ended, anything may play.
        try core.startUploaded(pattern("0.3:10"), intensity: 1, priority: 0, now: t0 + 3 * ms)
    }

    func testNoDeviceIsTheOnlyDeviceError() {
        var core = makeCore()
        XCTAssertThrowsError(try core.startUploaded(pattern("1:10"), intensity: 1, priority: 0, now: t0)) {
            XCTAssertEqual($0 as? HapticsError, .noDevice)
        }
    }

    func testStrengthCapRidesOnGainOrOnMagnitudes() throws {
        let withGain = FakeForceFeedbackDevice(path: "/dev/input/event0", gain: true)
        let without = FakeForceFeedbackDevice(path: "/dev/input/event1", gain: false)
        var core = makeCore(cap: 0.5, withGain, without)
        XCTAssertEqual(withGain.gain, 32768)
        try core.startUploaded(pattern("0.8:10"), intensity: 0.5, priority: 0, now: t0)
        XCTAssertEqual(withGain.plays.map(\.strong), [strong(0.4)], "intensity scales, gain carries the cap")
        XCTAssertEqual(without.plays.map(\.strong), [strong(0.2)], "intensity × cap")
        core.setStrengthCap(0.25)
        XCTAssertEqual(withGain.gain, 16384)
    }

    func testZeroIntensityPlaysNothing() throws {
        let d = FakeForceFeedbackDevice(path: "/dev/input/event0")
        var core = makeCore(d)
        try core.startUploaded(pattern("1:10,0.5:10"), intensity: 0, priority: 0, now: t0)
        XCTAssertEqual(d.plays.count, 0)
    }

    func testUnplugMidPatternDropsTheDeviceQuietly() throws {
        let a = FakeForceFeedbackDevice(path: "/dev/input/event0")
        let b = FakeForceFeedbackDevice(path: "/dev/input/event1")
        var core = makeCore(a, b)
        try core.startUploaded(pattern("1:10,0:10,0.5:10"), intensity: 1, priority: 0, now: t0)
        a.unplug()
        core.step(now: t0 + 10 * ms)
        core.step(now: t0 + 20 * ms)
        XCTAssertEqual(Array(core.devices.keys), ["/dev/input/event1"])
        XCTAssertTrue(core.takeClosing().contains { $0 === a }, "closed later, on a worker")
        XCTAssertEqual(b.plays.map(\.strong), [65535, strong(0.5)], "the other device keeps playing")
        XCTAssertEqual(core.takeLost(), ["/dev/input/event0"])
        b.unplug()
        core.step(now: t0 + 30 * ms)
        XCTAssertTrue(core.devices.isEmpty)
        XCTAssertFalse(core.isPlaying, "nothing left to play on")
    }

    func testDeviceAddedMidPatternJoinsAtTheNextStep() throws {
        let a = FakeForceFeedbackDevice(path: "/dev/input/event0")
        var core = makeCore(a)
        try core.startUploaded(pattern("1:10,0.5:10"), intensity: 1, priority: 0, now: t0)
        let b = FakeForceFeedbackDevice(path: "/dev/input/event1")
        core.attach(b)
        core.drainUploads()  // the engine asks for the running pattern's effects on a new device
        core.step(now: t0 + 10 * ms)
        XCTAssertEqual(b.plays.map(\.strong), [strong(0.5)])
    }

    func testPatternEffectsAreUploadedUpFrontWithinTheSlots() throws {
        let d = FakeForceFeedbackDevice(path: "/dev/input/event0", slots: 3)
        var core = makeCore(d)
        try core.startUploaded(pattern("0.1:10,0.2:10,0.3:10,0.4:10,0.5:10"), intensity: 1, priority: 0, now: t0)
        XCTAssertEqual(d.uploadCount, 3, "the first step and as many later ones as fit")
        XCTAssertFalse(core.isReady(Rendition(PatternPlan(pattern("0.9:10"), intensity: 1)), on: d.path))
        XCTAssertEqual(d.eraseCount, 0)
        for step in 1...5 { core.step(now: t0 + UInt64(step * 10) * ms) }
        XCTAssertEqual(d.plays.map(\.strong), [0.1, 0.2, 0.3, 0.4, 0.5].map(strong))
        XCTAssertLessThanOrEqual(d.effects.count, 3)
        XCTAssertEqual(d.eraseCount, 2)
    }

    func testRequestsWaitForNoUploadOnce() throws {
        // What is not uploaded is not played: the step is sat out, not waited for.
        let d = FakeForceFeedbackDevice(path: "/dev/input/event0")
        var core = makeCore(d)
        let plan = Rendition(PatternPlan(pattern("1:10,0.5:10"), intensity: 1))
        XCTAssertFalse(core.isReady(plan, on: d.path))
        try core.start(plan, priority: 0, now: t0)
        XCTAssertEqual(d.plays.count, 0)
        core.want(core.effects(of: plan, on: d.path), on: d.path)
        let job = try XCTUnwrap(core.nextUpload(on: d.path))
        XCTAssertNil(core.nextUpload(on: d.path), "one upload job per device at a time")
        core.landed(job.run(), on: d.path)
        XCTAssertTrue(core.isReady(plan, on: d.path), "its first effect is there")
        let second = try XCTUnwrap(core.nextUpload(on: d.path), "one effect per job: the first lands sooner")
        core.landed(second.run(), on: d.path)
        core.advance(now: t0 + 10 * ms)
        XCTAssertEqual(d.plays.map(\.strong), [strong(0.5)])
    }
}

extension HapticsCore {
    /// Uploads what is wanted and due on every device, as the engine's workers would.
    mutating func drainUploads() {
        for path in devices.keys.sorted() {
            want(upcoming(on: path), on: path)
            while let job = nextUpload(on: path) { landed(job.run(), on: path) }
        }
    }

    /// Uploads a pattern's effects, then starts it (the engine's path when a device holds them).
    mutating func startUploaded(_ pattern: HapticPattern, intensity: Double, priority: Int, now: UInt64) throws(HapticsError) {
        try startUploaded(Rendition(PatternPlan(pattern, intensity: intensity)), priority: priority, now: now)
    }

    mutating func startUploaded(_ rendition: Rendition, priority: Int, now: UInt64) throws(HapticsError) {
        for path in devices.keys.sorted() {
            want(effects(of: rendition, on: path), on: path)
            while let job = nextUpload(on: path) { landed(job.run(), on: path) }
        }
        try start(rendition, priority: priority, now: now)
        drainUploads()
    }

    /// A timer step followed by the uploads it asks for.
    mutating func step(now: UInt64) {
        advance(now: now)
        drainUploads()
    }
}
