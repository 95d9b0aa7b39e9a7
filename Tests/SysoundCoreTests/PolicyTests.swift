import XCTest
@testable import SysoundCore

/// Every cell of category × {nothing, silent, locked, interrupted, volume 0,
/// haptics off}, for a sound with a paired haptic and one without.
final class PolicyTests: XCTestCase {
    enum Condition: CaseIterable { case normal, silent, locked, interrupted, volumeZero, hapticsOff }

    func state(_ c: Condition) -> SystemState {
        var s = SystemState(volume: 0.5)
        switch c {
        case .normal: break
        case .silent: s.silent = true
        case .locked: s.locked = true
        case .interrupted: s.interrupted = true
        case .volumeZero: s.volume = 0
        case .hapticsOff: s.haptics = false
        }
        return s
    }

    /// Expected sound outcome: "play", "defer", or a skip reason.
    let soundTable: [SoundCategory: [Condition: String]] = [
        .ambient: [.normal: "play", .silent: "silent", .locked: "locked", .interrupted: "interrupted", .volumeZero: "volume-zero", .hapticsOff: "play"],
        .soloAmbient: [.normal: "play", .silent: "silent", .locked: "locked", .interrupted: "interrupted", .volumeZero: "volume-zero", .hapticsOff: "play"],
        .alert: [.normal: "play", .silent: "silent", .locked: "play", .interrupted: "defer", .volumeZero: "volume-zero", .hapticsOff: "play"],
        .playback: [.normal: "play", .silent: "play", .locked: "play", .interrupted: "defer", .volumeZero: "volume-zero", .hapticsOff: "play"],
    ]

    /// Expected haptic outcome for a sound paired with the `tap` preset:
    /// a preset name, "none", or a skip reason.
    let pairedHapticTable: [SoundCategory: [Condition: String]] = [
        .ambient: [.normal: "tap", .silent: "tap", .locked: "locked", .interrupted: "interrupted", .volumeZero: "tap", .hapticsOff: "haptics-off"],
        .soloAmbient: [.normal: "tap", .silent: "tap", .locked: "locked", .interrupted: "interrupted", .volumeZero: "tap", .hapticsOff: "haptics-off"],
        .alert: [.normal: "tap", .silent: "tap", .locked: "tap", .interrupted: "interrupted", .volumeZero: "tap", .hapticsOff: "haptics-off"],
        .playback: [.normal: "tap", .silent: "tap", .locked: "tap", .interrupted: "interrupted", .volumeZero: "tap", .hapticsOff: "haptics-off"],
    ]

    /// Without a paired haptic only a silenced alert vibrates (the default alert pattern).
    let unpairedHapticTable: [SoundCategory: [Condition: String]] = [
        .ambient: [:], .soloAmbient: [:], .playback: [:],
        .alert: [.silent: "alert"],
    ]

    func testEveryCellOfTheTable() {
        for category in SoundCategory.allCases {
            for condition in Condition.allCases {
                for paired in [true, false] {
                    let entry = SoundEntry(name: "x", file: "x.wav", gain: 0.8, category: .ambient, haptic: paired ? "tap" : nil)
                    let d = Policy.decide(PlayRequest(.name("x"), category: category), entry: entry, state: state(condition))
                    let where_ = "\(category) / \(condition) / paired: \(paired)"
                    XCTAssertEqual(d.category, category, where_)
                    XCTAssertEqual(describe(d.sound), soundTable[category]![condition]!, "sound: \(where_)")
                    let hapticTable = paired ? pairedHapticTable : unpairedHapticTable
                    var expected = hapticTable[category]![condition] ?? "none"
                    if !paired && condition == .silent && category == .alert { expected = "alert" }
                    XCTAssertEqual(describe(d.haptic), expected, "haptic: \(where_)")
                }
            }
        }
    }

    func testFinalGainIsClipTimesRequestTimesCategoryTimesVolume() {
        let entry = SoundEntry(name: "x", file: "x.wav", gain: 0.8)
        let settings = PolicySettings(categoryGains: [.ambient: 0.5])
        let d = Policy.decide(PlayRequest(.name("x"), gain: 0.5), entry: entry, state: SystemState(volume: 0.25), settings: settings)
        XCTAssertEqual(d.sound, .play(gain: 0.8 * 0.5 * 0.5 * 0.25))
    }

    func testRequestGainCannotBoostAndNaNIsSilence() {
        let entry = SoundEntry(name: "x", file: "x.wav", gain: 1)
        XCTAssertEqual(Policy.decide(PlayRequest(.name("x"), gain: 4), entry: entry, state: .defaults).sound, .play(gain: 1))
        XCTAssertEqual(Policy.decide(PlayRequest(.name("x"), gain: .nan), entry: entry, state: .defaults).sound, .play(gain: 0))
    }

    func testEntryCategoryIsTheDefaultAndTheRequestOverridesIt() {
        let alarm = SoundEntry(name: "alarm", file: "alarm.wav", category: .playback)
        let silent = SystemState(silent: true)
        XCTAssertEqual(Policy.decide(PlayRequest(.name("alarm")), entry: alarm, state: silent).kind, .play)
        XCTAssertEqual(Policy.decide(PlayRequest(.name("alarm"), category: .ambient), entry: alarm, state: silent).soundSkipReason, .silent)
    }

    func testAlertWithVibrateOnAlertSoundsAndVibrates() {
        let ping = SoundEntry(name: "notification", file: "n.wav", category: .alert)
        let d = Policy.decide(PlayRequest(.name("notification")), entry: ping, state: SystemState(vibrateOnAlert: true))
        XCTAssertEqual(d.kind, .playAndVibrate)
        XCTAssertEqual(d.haptic, .vibrate(preset: "alert"))
    }

    func testSilencedAlertVibratesWithItsOwnHapticElseTheDefault() {
        let own = SoundEntry(name: "error", file: "e.wav", category: .alert, haptic: "error")
        XCTAssertEqual(Policy.decide(PlayRequest(.name("error")), entry: own, state: SystemState(silent: true)).kind, .vibrateInstead)
        XCTAssertEqual(Policy.decide(PlayRequest(.name("error")), entry: own, state: SystemState(silent: true)).haptic, .vibrate(preset: "error"))
        let settings = PolicySettings(defaultAlertHaptic: "buzz")
        let plain = SoundEntry(name: "n", file: "n.wav", category: .alert)
        XCTAssertEqual(Policy.decide(PlayRequest(.name("n")), entry: plain, state: SystemState(silent: true), settings: settings).haptic, .vibrate(preset: "buzz"))
    }

    func testRequestCanOptOutOfThePairedHaptic() {
        let tap = SoundEntry(name: "tap", file: "t.wav", haptic: "tap")
        XCTAssertEqual(Policy.decide(PlayRequest(.name("tap"), haptic: false), entry: tap, state: .defaults).kind, .play)
    }

    func testVibrationRequestsObeyOnlyTheHapticsSwitch() {
        XCTAssertNil(Policy.decideVibration(state: SystemState(silent: true, locked: true)))
        XCTAssertEqual(Policy.decideVibration(state: SystemState(haptics: false)), .hapticsOff)
    }
}

/// Haptic skip reasons are typed inside the process; their strings exist for the wire only.
final class HapticSkipReasonTests: XCTestCase {
    func testEveryReasonRoundTripsThroughItsWireForm() {
        let all: [HapticSkipReason] = SkipReason.allCases.map(HapticSkipReason.policy) + [.noDevice, .outranked, .uploading]
        for reason in all {
            XCTAssertEqual(HapticSkipReason(rawValue: reason.rawValue), reason, reason.rawValue)
            XCTAssertFalse(reason.explanation.isEmpty)
        }
        XCTAssertEqual(Set(all.map(\.rawValue)).count, all.count, "no two reasons share a wire form")
        XCTAssertNil(HapticSkipReason(rawValue: "later"))
    }

    func testBuiltInPresetsAreTheOneList() {
        XCTAssertEqual(HapticPresets.names, BuiltInHaptic.allCases.map(\.rawValue).sorted())
        XCTAssertEqual(PolicySettings.defaults.defaultAlertHaptic, BuiltInHaptic.alert.rawValue)
    }
}
