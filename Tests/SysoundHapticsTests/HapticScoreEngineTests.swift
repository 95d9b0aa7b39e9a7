import SysoundCore
import SysoundTesting
import XCTest
@testable import SysoundHaptics
#if canImport(Glibc)
import Glibc
#endif

/// One score, rendered by the engine for each motor it has: levels on a
/// motor with amplitude control, on-time on an on/off one, both at once.
extension HapticsEngineTests {
    /// The magnitudes and lengths of what was uploaded, in upload order.
    func uploads(_ device: FakeForceFeedbackDevice) -> [(UInt16, UInt16)] {
        device.records.compactMap {
            if case .upload(_, let effect, _) = $0.operation { (effect.strongMagnitude, effect.lengthMs) } else { nil }
        }
    }

    func testAScoreIsPlayedAsLevelsWhereTheMotorHasAmplitudeControl() throws {
        let device = plug("event0")
        let engine = try makeEngine()
        XCTAssertTrue(eventually { engine.deviceReport.first?.used == true })
        XCTAssertEqual(engine.deviceReport.first?.motor, MotorAbility(amplitudeControl: true, motor: .lra, minimumPulseMs: 0))
        let score = try HapticComposition(parsing: "tick:0.5,click").score
        try engine.vibrate(score: score)
        XCTAssertTrue(eventually { uploads(device).count >= 2 })
        let levels = Set(uploads(device).map(\.0))
        XCTAssertTrue(levels.contains { $0 < 0x8000 }, "the faint tick is a low level: \(uploads(device))")
        XCTAssertTrue(levels.contains(0xFFFF), "the click is full: \(uploads(device))")
    }

    func testAScoreIsPlayedAsOnTimeOnAnOnOffMotor() throws {
        let device = plug("event0", deviceName: "gpio-vibrator")
        let engine = try makeEngine()
        XCTAssertTrue(eventually { engine.deviceReport.first?.used == true })
        let ability = try XCTUnwrap(engine.deviceReport.first?.motor, "status reports the motor's abilities")
        XCTAssertFalse(ability.amplitudeControl)
        XCTAssertEqual(ability.minimumPulseMs, 40)
        // The same faint tick and click: both full strength, each at least the felt minimum.
        let score = try HapticComposition(parsing: "tick:0.5@0,click@100").score
        try engine.vibrate(score: score)
        XCTAssertTrue(eventually { !uploads(device).isEmpty })
        XCTAssertTrue(eventually { !engine.isVibrating })
        for (magnitude, length) in uploads(device) {
            XCTAssertEqual(magnitude, 0xFFFF, "\(uploads(device))")
            XCTAssertGreaterThanOrEqual(length, 40, "\(uploads(device))")
        }
    }

    /// Two motors at once, through the engine: a score, a composed preset and
    /// a theme's AHAP haptic each reach the amplitude motor as levels and the
    /// on/off motor as full pulses of its felt minimum.
    func testEveryDeviceGetsItsOwnRenderingOfAScoreOrAComposedPreset() throws {
        let amplitude = plug("event0")
        let onOff = plug("event1", deviceName: "gpio-vibrator")
        let engine = try makeEngine(devices: 2)
        engine.define(scores: ["theme-tick": try HapticScore(parsing: "t@0:0.4/1")])
        let requests: [() throws -> Void] = [
            { try engine.vibrate(score: HapticComposition(parsing: "tick:0.5").score) },
            { try engine.vibrate(preset: "segment-tick") },  // tick:0.6
            { try engine.vibrate(preset: "theme-tick") },
        ]
        for (n, vibrate) in requests.enumerated() {
            try vibrate()
            XCTAssertTrue(eventually { amplitude.plays.count == n + 1 && onOff.plays.count == n + 1 && !engine.isVibrating },
                          "request \(n + 1): \(amplitude.plays) \(onOff.plays)")
        }
        XCTAssertEqual(amplitude.plays.map { [$0.strong, $0.length] }, [[strong(0.25), 10], [strong(0.3), 10], [strong(0.4), 10]])
        XCTAssertEqual(onOff.plays.map { [$0.strong, $0.length] }, Array(repeating: [strong(1), 40], count: 3))
        // Both start at the request's time.
        for (a, b) in zip(amplitude.plays, onOff.plays) {
            XCTAssertLessThan(max(a.time, b.time) - min(a.time, b.time), 5_000_000)
        }
    }

    func testACueRunsOnTheLoopNoSoonerThanItsTime() throws {
        _ = plug("event0")
        let engine = try makeEngine()
        let ran = Locked<UInt64?>(nil)
        let asked = MonotonicClock.now()
        engine.cue(afterMs: 120) { ran.withLock { $0 = MonotonicClock.now() } }
        XCTAssertTrue(eventually { ran.withLock { $0 } != nil })
        let at = try XCTUnwrap(ran.withLock { $0 })
        XCTAssertGreaterThanOrEqual(at - asked, 120_000_000)
    }
}
