import SysoundCore
import SysoundTesting
import XCTest
@testable import SysoundHaptics
#if canImport(Glibc)
import Glibc
#endif

/// One score, rendered by the engine for the motor it has: levels on a
/// motor with amplitude control, on-time on an on/off one.
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
        XCTAssertEqual(engine.motorAbility, MotorAbility(amplitudeControl: true, motor: .lra, minimumPulseMs: 0))
        let score = try HapticComposition(parsing: "tick:0.5,click").score
        try engine.vibrate(pattern: engine.pattern(forScore: score))
        XCTAssertTrue(eventually { uploads(device).count >= 2 })
        let levels = Set(uploads(device).map(\.0))
        XCTAssertTrue(levels.contains { $0 < 0x8000 }, "the faint tick is a low level: \(uploads(device))")
        XCTAssertTrue(levels.contains(0xFFFF), "the click is full: \(uploads(device))")
    }

    func testAScoreIsPlayedAsOnTimeOnAnOnOffMotor() throws {
        let device = plug("event0", deviceName: "gpio-vibrator")
        let engine = try makeEngine()
        XCTAssertTrue(eventually { engine.deviceReport.first?.used == true })
        let ability = engine.motorAbility
        XCTAssertFalse(ability.amplitudeControl)
        XCTAssertEqual(ability.minimumPulseMs, 40)
        XCTAssertEqual(engine.deviceReport.first?.motor, ability, "status reports the motor's abilities")
        // The same faint tick and click: both full strength, each at least the felt minimum.
        let score = try HapticComposition(parsing: "tick:0.5@0,click@100").score
        try engine.vibrate(pattern: engine.pattern(forScore: score))
        XCTAssertTrue(eventually { !uploads(device).isEmpty })
        XCTAssertTrue(eventually { !engine.isVibrating })
        for (magnitude, length) in uploads(device) {
            XCTAssertEqual(magnitude, 0xFFFF, "\(uploads(device))")
            XCTAssertGreaterThanOrEqual(length, 40, "\(uploads(device))")
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
