import SysoundCore
import SysoundTesting
import XCTest
@testable import SysoundHaptics

/// One score played by several devices at once, each as well as its own
/// motor can: the engine renders it per device and keeps them on one clock.
final class PerDeviceRenditionTests: XCTestCase {
    let ms: UInt64 = 1_000_000
    let t0: UInt64 = 1_000_000_000_000

    /// A faint sharp tap at 0 and a full one at 100 ms.
    let score = try! HapticScore(parsing: "t@0:0.5/1;t@100:1/1")

    let amplitude = FakeForceFeedbackDevice(path: "/dev/input/event0", capabilities: ForceFeedbackCapabilities(
        name: "fake rumble", rumble: true, gain: true, effectSlots: 8))
    let onOff = FakeForceFeedbackDevice(path: "/dev/input/event1", capabilities: ForceFeedbackCapabilities(
        name: "gpio-vibrator", rumble: true, gain: true, effectSlots: 8))

    /// A core using `devices`.
    func makeCore(_ devices: FakeForceFeedbackDevice...) -> HapticsCore {
        var core = HapticsCore(strengthCap: 1, logger: quietLogger())
        for device in devices { core.attach(device) }
        return core
    }

    func testEachDevicePlaysTheScoreAsItsMotorCanOnOneClock() throws {
        var core = makeCore(amplitude, onOff)
        XCTAssertEqual(core.devices[amplitude.path]?.motor.amplitudeControl, true)
        XCTAssertEqual(core.devices[onOff.path]?.motor, MotorAbility(amplitudeControl: false, motor: .erm, minimumPulseMs: 40))
        let rendition = try Rendition(
            .score(score), intensity: 1, minimumPulseMs: 0, motors: core.devices.values.map(\.motor))
        try core.startUploaded(rendition, priority: 0, now: t0)
        // The amplitude motor: the faint tap as a low level, 10 ms taps (sharp);
        // the on/off motor: both taps at full, each its 40 ms minimum felt pulse.
        // Each device's steps on the one clock: (plays, stops) of each after every step.
        func progress() -> [Int] { [amplitude.plays.count, amplitude.stops.count, onOff.plays.count, onOff.stops.count] }
        XCTAssertEqual(progress(), [1, 0, 1, 0], "both start at once")
        let expected: [(UInt64, [Int])] = [
            (10, [1, 1, 1, 0]),  // the faint tap ends; the on/off pulse goes on
            (40, [1, 1, 1, 1]),  // the on/off pulse's minimum ends
            (100, [2, 1, 2, 1]),  // the full tap on both
            (110, [2, 2, 2, 1]),  // the amplitude motor's rendering ends, the other's does not
            (140, [2, 2, 2, 2]),
        ]
        for (deadline, counts) in expected {
            XCTAssertEqual(core.nextDeadline, t0 + deadline * ms, "the earliest next step of either device")
            core.step(now: t0 + deadline * ms)
            XCTAssertEqual(progress(), counts, "at \(deadline) ms")
        }
        XCTAssertFalse(core.isPlaying, "over once the longest rendering has ended")
        XCTAssertNil(core.nextDeadline)
        XCTAssertEqual(amplitude.plays.map { [$0.strong, $0.length] }, [[strong(0.5), 10], [strong(1), 10]])
        XCTAssertEqual(onOff.plays.map { [$0.strong, $0.length] }, [[strong(1), 40], [strong(1), 40]])
    }

    func testAStepPatternIsTheSameOnEveryDevice() throws {
        var core = makeCore(amplitude, onOff)
        try core.startUploaded(pattern("0.5:20,0:30,1:20"), intensity: 1, priority: 0, now: t0)
        for deadline in [20, 50, 70] as [UInt64] { core.step(now: t0 + deadline * ms) }
        XCTAssertEqual(amplitude.plays.map(\.strong), onOff.plays.map(\.strong), "what the caller wrote is played as written")
    }

    func testADeviceThatJoinsGetsItsOwnRenderingAtItsNextStep() throws {
        var core = makeCore(amplitude)
        let rendition = try Rendition(.score(score), intensity: 1, minimumPulseMs: 0, motors: core.devices.values.map(\.motor))
        try core.startUploaded(rendition, priority: 0, now: t0)
        core.step(now: t0 + 10 * ms)
        core.attach(onOff)
        core.drainUploads()
        for deadline in [40, 100, 110, 140] as [UInt64] {
            XCTAssertEqual(core.nextDeadline, t0 + deadline * ms)
            core.step(now: t0 + deadline * ms)
        }
        XCTAssertEqual(onOff.plays.map { [$0.strong, $0.length] }, [[strong(1), 40]], "the second tap, rendered for the on/off motor")
        XCTAssertEqual(onOff.stops.count, 1)
        XCTAssertFalse(core.isPlaying)
    }
}
