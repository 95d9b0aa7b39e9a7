import XCTest
@testable import SysoundCore

/// Every cell of category × the desktop's switches (do not disturb, event
/// sounds, input feedback sounds; alone and with silent mode, lock and
/// volume 0), for a sound with a paired haptic and one without, an input
/// sound and not. The table is the policy's documentation: docs/desktop-settings.md
/// (do not disturb, event sounds off).
final class DesktopPolicyTests: XCTestCase {
    enum Condition: CaseIterable {
        case normal, dnd, dndImportantAllowed, dndImportantOtherApp, eventSoundsOff, inputFeedbackOff
        case dndAndSilent, dndAndLocked, eventSoundsOffAndSilent, eventSoundsOffAndLocked, eventSoundsOffImportant
        case inputFeedbackOffAndVolumeZero
    }

    static let allowed = "org.example.Clocks"

    func inputs(_ c: Condition) -> (SystemState, DesktopState, important: Bool, app: String?) {
        var s = SystemState(volume: 0.5)
        var d = DesktopState()
        var important = false
        var app: String? = nil
        switch c {
        case .normal: break
        case .dnd: d.doNotDisturb = true
        case .dndImportantAllowed: d.doNotDisturb = true; important = true; app = Self.allowed
        case .dndImportantOtherApp: d.doNotDisturb = true; important = true; app = "org.example.Other"
        case .eventSoundsOff: d.eventSounds = false
        case .inputFeedbackOff: d.inputFeedbackSounds = false
        case .dndAndSilent: d.doNotDisturb = true; s.silent = true
        case .dndAndLocked: d.doNotDisturb = true; s.locked = true
        case .eventSoundsOffAndSilent: d.eventSounds = false; s.silent = true
        case .eventSoundsOffAndLocked: d.eventSounds = false; s.locked = true
        case .eventSoundsOffImportant: d.eventSounds = false; important = true; app = Self.allowed
        case .inputFeedbackOffAndVolumeZero: d.inputFeedbackSounds = false; s.volume = 0
        }
        d.allowImportant = [Self.allowed]
        return (s, d, important, app)
    }

    /// Expected sound outcome for a sound that is not input feedback.
    let soundTable: [SoundCategory: [Condition: String]] = [
        .ambient: [
            .normal: "play", .dnd: "play", .dndImportantAllowed: "play", .dndImportantOtherApp: "play",
            .eventSoundsOff: "event-sounds-off", .inputFeedbackOff: "play", .dndAndSilent: "silent", .dndAndLocked: "locked",
            .eventSoundsOffAndSilent: "silent", .eventSoundsOffAndLocked: "locked", .eventSoundsOffImportant: "event-sounds-off",
            .inputFeedbackOffAndVolumeZero: "volume-zero",
        ],
        .soloAmbient: [
            .normal: "play", .dnd: "play", .dndImportantAllowed: "play", .dndImportantOtherApp: "play",
            .eventSoundsOff: "event-sounds-off", .inputFeedbackOff: "play", .dndAndSilent: "silent", .dndAndLocked: "locked",
            .eventSoundsOffAndSilent: "silent", .eventSoundsOffAndLocked: "locked", .eventSoundsOffImportant: "event-sounds-off",
            .inputFeedbackOffAndVolumeZero: "volume-zero",
        ],
        .alert: [
            .normal: "play", .dnd: "do-not-disturb", .dndImportantAllowed: "play", .dndImportantOtherApp: "do-not-disturb",
            .eventSoundsOff: "event-sounds-off", .inputFeedbackOff: "play", .dndAndSilent: "do-not-disturb",
            .dndAndLocked: "do-not-disturb", .eventSoundsOffAndSilent: "silent", .eventSoundsOffAndLocked: "event-sounds-off",
            .eventSoundsOffImportant: "event-sounds-off", .inputFeedbackOffAndVolumeZero: "volume-zero",
        ],
        .playback: [
            .normal: "play", .dnd: "play", .dndImportantAllowed: "play", .dndImportantOtherApp: "play",
            .eventSoundsOff: "play", .inputFeedbackOff: "play", .dndAndSilent: "play", .dndAndLocked: "play",
            .eventSoundsOffAndSilent: "play", .eventSoundsOffAndLocked: "play", .eventSoundsOffImportant: "play",
            .inputFeedbackOffAndVolumeZero: "volume-zero",
        ],
    ]

    /// An input sound differs only where input feedback is off: silent but for playback.
    func expectedSound(_ category: SoundCategory, _ c: Condition, input: Bool) -> String {
        if input && [.inputFeedbackOff, .inputFeedbackOffAndVolumeZero].contains(c) && category != .playback { return "input-feedback-off" }
        return soundTable[category]![c]!
    }

    /// Expected haptic for a sound paired with `tap`: it follows the sound,
    /// except that the desktop's sound switches (like silent mode) leave it
    /// alone; do not disturb and the lock stop it.
    func expectedPairedHaptic(_ category: SoundCategory, _ c: Condition, input: Bool) -> String {
        switch expectedSound(category, c, input: input) {
        case "locked": "locked"
        case "do-not-disturb": "do-not-disturb"
        default: "tap"
        }
    }

    /// Without a paired haptic only an alert silenced by silent mode vibrates.
    func expectedUnpairedHaptic(_ category: SoundCategory, _ c: Condition, input: Bool) -> String {
        expectedSound(category, c, input: input) == "silent" && category == .alert ? "alert" : "none"
    }

    func testEveryCellOfTheDesktopTable() {
        var cells = 0
        for category in SoundCategory.allCases {
            for condition in Condition.allCases {
                for paired in [true, false] {
                    for input in [true, false] {
                        let (state, desktop, important, app) = inputs(condition)
                        let entry = SoundEntry(name: "x", file: "x.wav", haptic: paired ? "tap" : nil, input: input)
                        let request = PlayRequest(.name("x"), category: category, app: app, important: important)
                        let d = Policy.decide(request, entry: entry, state: state, desktop: desktop)
                        let at = "\(category) / \(condition) / paired: \(paired) / input: \(input)"
                        XCTAssertEqual(describe(d.sound), expectedSound(category, condition, input: input), "sound: \(at)")
                        let haptic = paired ? expectedPairedHaptic(category, condition, input: input)
                            : expectedUnpairedHaptic(category, condition, input: input)
                        XCTAssertEqual(describe(d.haptic), haptic, "haptic: \(at)")
                        cells += 1
                    }
                }
            }
        }
        XCTAssertEqual(cells, SoundCategory.allCases.count * Condition.allCases.count * 4)
    }

    func testTheDefaultDesktopChangesNothing() {
        for category in SoundCategory.allCases {
            let entry = SoundEntry(name: "x", file: "x.wav", haptic: "tap", input: true)
            for state in [SystemState(), SystemState(silent: true), SystemState(locked: true), SystemState(volume: 0)] {
                let request = PlayRequest(.name("x"), category: category)
                XCTAssertEqual(
                    Policy.decide(request, entry: entry, state: state, desktop: .defaults),
                    Policy.decide(request, entry: entry, state: state), "\(category) \(state)")
            }
        }
    }

    func testDoNotDisturbStopsTheVibrateOnAlertVibrationToo() {
        let ping = SoundEntry(name: "n", file: "n.wav", category: .alert)
        let d = Policy.decide(
            PlayRequest(.name("n")), entry: ping, state: SystemState(vibrateOnAlert: true), desktop: DesktopState(doNotDisturb: true))
        XCTAssertEqual(d.kind, .skip)
        XCTAssertEqual(d.haptic, .skip(.doNotDisturb))
    }

    func testImportantFromAConfiguredAppPiercesDoNotDisturbToo() {
        let ping = SoundEntry(name: "n", file: "n.wav", category: .alert)
        let settings = PolicySettings(allowImportant: ["org.example.Calls"])
        let request = PlayRequest(.name("n"), app: "org.example.Calls", important: true)
        let d = Policy.decide(request, entry: ping, state: .defaults, settings: settings, desktop: DesktopState(doNotDisturb: true))
        XCTAssertEqual(d.kind, .play)
    }

    func testFeedbackdPerAppProfileAndConfigLevelTheLowerHolds() {
        let tap = SoundEntry(name: "tap", file: "t.wav", haptic: "tap")
        let app = "org.example.Chat"
        func decide(config: FeedbackProfile?, desktop: FeedbackProfile?) -> Decision {
            let settings = PolicySettings(apps: config.map { [app: AppLevel(profile: $0)] } ?? [:])
            let d = DesktopState(appProfiles: desktop.map { [app: $0] } ?? [:])
            return Policy.decide(PlayRequest(.name("tap"), app: app), entry: tap, state: .defaults, settings: settings, desktop: d)
        }
        XCTAssertEqual(decide(config: nil, desktop: nil).kind, .playAndVibrate)
        XCTAssertEqual(decide(config: nil, desktop: .quiet).kind, .vibrateInstead)
        XCTAssertEqual(decide(config: .quiet, desktop: .full).kind, .vibrateInstead)
        XCTAssertEqual(decide(config: .full, desktop: .silent).kind, .skip)
        XCTAssertEqual(decide(config: .silent, desktop: .quiet).kind, .skip)
        // Other apps are not touched.
        let d = Policy.decide(
            PlayRequest(.name("tap"), app: "org.example.Other"), entry: tap, state: .defaults,
            desktop: DesktopState(appProfiles: [app: .silent]))
        XCTAssertEqual(d.kind, .playAndVibrate)
    }

    func testFeedbackdPerAppProfileStopsVibrationRequests() {
        let desktop = DesktopState(appProfiles: ["org.example.Game": .silent])
        XCTAssertEqual(Policy.decideVibration(state: .defaults, app: "org.example.Game", desktop: desktop), .hapticsOff)
        XCTAssertNil(Policy.decideVibration(state: .defaults, app: "org.example.Game", desktop: DesktopState(appProfiles: ["org.example.Game": .quiet])))
        XCTAssertNil(Policy.decideVibration(state: .defaults, app: "org.example.Other", desktop: desktop))
    }

    func testFeedbackdAllowImportantPiercesSilentMode() {
        let ping = SoundEntry(name: "n", file: "n.wav", category: .alert)
        let request = PlayRequest(.name("n"), app: "sm.puri.Calls", important: true)
        XCTAssertEqual(Policy.decide(request, entry: ping, state: SystemState(silent: true)).kind, .vibrateInstead)
        let desktop = DesktopState(allowImportant: ["sm.puri.Calls"])
        XCTAssertEqual(Policy.decide(request, entry: ping, state: SystemState(silent: true), desktop: desktop).kind, .play)
    }

    func testHapticScaleIsClamped() {
        XCTAssertEqual(DesktopState(maxHapticStrength: 0.4).hapticScale, 0.4)
        XCTAssertEqual(DesktopState(maxHapticStrength: 3).hapticScale, 1)
        XCTAssertEqual(DesktopState(maxHapticStrength: -1).hapticScale, 0)
        XCTAssertEqual(DesktopState(maxHapticStrength: .nan).hapticScale, 0)
    }

    func testEveryReasonHasASentence() {
        for reason in [SkipReason.doNotDisturb, .eventSoundsOff, .inputFeedbackOff] {
            XCTAssertFalse(reason.explanation.isEmpty)
            XCTAssertEqual(SkipReason(rawValue: reason.rawValue), reason)
        }
    }
}
