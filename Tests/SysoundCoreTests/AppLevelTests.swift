import XCTest
@testable import SysoundCore

/// Profiles, per-app levels and the `important` allow-list: they only lower,
/// except an allowed app's important request, which pierces silent mode.
final class AppLevelTests: XCTestCase {
    let message = SoundEntry(name: "notification", file: "n.wav", category: .alert)
    let tap = SoundEntry(name: "tap", file: "t.wav", haptic: "tap")
    let settings = PolicySettings(
        apps: ["org.quiet": AppLevel(profile: .quiet), "org.soft": AppLevel(gain: 0.25), "org.mute": AppLevel(profile: .silent)],
        allowImportant: ["org.clock", "org.mute"])

    func testProfileFollowsAndSetsTheControlFiles() {
        XCTAssertEqual(FeedbackProfile(state: SystemState()), .full)
        XCTAssertEqual(FeedbackProfile(state: SystemState(silent: true)), .quiet)
        XCTAssertEqual(FeedbackProfile(state: SystemState(silent: true, haptics: false)), .silent)
        XCTAssertEqual(FeedbackProfile(state: SystemState(haptics: false)), .full)  // haptics off alone is still "full" sound
        for profile in FeedbackProfile.allCases {
            let (silent, haptics) = profile.settings
            XCTAssertEqual(FeedbackProfile(state: SystemState(silent: silent, haptics: haptics)), profile)
        }
        XCTAssertLessThan(FeedbackProfile.silent, .quiet)
        XCTAssertLessThan(FeedbackProfile.quiet, .full)
    }

    func testAnAppLevelLowersNeverRaises() {
        let normal = SystemState()
        XCTAssertEqual(Policy.decide(PlayRequest(.name("n"), app: "org.quiet"), entry: message, state: normal, settings: settings).kind, .vibrateInstead)
        XCTAssertEqual(Policy.decide(PlayRequest(.name("n"), app: "org.other"), entry: message, state: normal, settings: settings).kind, .play)
        // A full app level does not lift the user's silent mode.
        let silent = SystemState(silent: true)
        XCTAssertEqual(Policy.decide(PlayRequest(.name("n"), app: "org.soft"), entry: message, state: silent, settings: settings).sound, .skip(.silent))
        // The gain multiplies in.
        XCTAssertEqual(Policy.decide(PlayRequest(.name("t"), app: "org.soft"), entry: tap, state: normal, settings: settings).sound, .play(gain: 0.25))
        // silent: no sound and no vibration.
        let mute = Policy.decide(PlayRequest(.name("t"), app: "org.mute"), entry: tap, state: normal, settings: settings)
        XCTAssertEqual(mute.sound, .skip(.silent))
        XCTAssertEqual(mute.haptic, .skip(.hapticsOff))
        XCTAssertEqual(Policy.decideVibration(state: normal, app: "org.mute", settings: settings), .hapticsOff)
        XCTAssertNil(Policy.decideVibration(state: normal, app: "org.quiet", settings: settings))
    }

    func testAProfileHintOnlyLowers() {
        let quietHint = PlayRequest(.name("t"), profile: .quiet)
        XCTAssertEqual(Policy.decide(quietHint, entry: tap, state: SystemState(), settings: settings).sound, .skip(.silent))
        let fullHint = PlayRequest(.name("n"), profile: .full)
        XCTAssertEqual(Policy.decide(fullHint, entry: message, state: SystemState(silent: true), settings: settings).sound, .skip(.silent))
    }

    func testImportantPiercesSilentModeOnlyForAllowedApps() {
        let silent = SystemState(silent: true)
        let allowed = PlayRequest(.name("n"), app: "org.clock", important: true)
        XCTAssertEqual(Policy.decide(allowed, entry: message, state: silent, settings: settings).sound, .play(gain: 1))
        let other = PlayRequest(.name("n"), app: "org.chat", important: true)
        XCTAssertEqual(Policy.decide(other, entry: message, state: silent, settings: settings).sound, .skip(.silent))
        let anonymous = PlayRequest(.name("n"), important: true)
        XCTAssertEqual(Policy.decide(anonymous, entry: message, state: silent, settings: settings).sound, .skip(.silent))
        // Allowed and important: it replaces the user's level only; its own app level still caps it (feedbackd 0.8.5).
        let muted = PlayRequest(.name("n"), app: "org.mute", important: true)
        XCTAssertEqual(Policy.decide(muted, entry: message, state: silent, settings: settings).sound, .skip(.silent))
        let hinted = PlayRequest(.name("n"), app: "org.clock", profile: .quiet, important: true)
        XCTAssertEqual(Policy.decide(hinted, entry: message, state: silent, settings: settings).sound, .skip(.silent))
        // The user's silent profile (haptics off too) is replaced whole: the alarm vibrates as well.
        let alarm = SoundEntry(name: "alarm", file: "a.wav", category: .alert, haptic: "alarm")
        let profileSilent = SystemState(silent: true, haptics: false)
        XCTAssertEqual(Policy.decide(allowed, entry: alarm, state: profileSilent, settings: settings).kind, .playAndVibrate)
        XCTAssertEqual(Policy.decide(other, entry: alarm, state: profileSilent, settings: settings).haptic, .skip(.hapticsOff))
        let locked = PlayRequest(.name("t"), app: "org.clock", important: true)
        XCTAssertEqual(Policy.decide(locked, entry: tap, state: SystemState(silent: true, locked: true), settings: settings).sound, .skip(.locked))
    }
}
