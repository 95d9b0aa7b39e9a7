import SysoundCore
import SysoundPlatform

/// sysound's own haptic interface on feedbackd's object: the vocabulary the
/// socket's `vibrate` takes by name — the presets (iOS-named, Android's
/// `HapticFeedbackConstants` moments, the configuration's) and compositions
/// of Android's primitives — which feedbackd's `Haptic.Vibrate` (step
/// patterns only) has no way to name. feedbackd's own methods keep their
/// meaning; these are answered as `Vibrate` is (true once it plays, false
/// when the policy or the device says no), and bad input is an InvalidArgs
/// error naming it and saying what to give instead.
extension FeedbackFace {
    static let sysoundHapticInterface = "org.sysound.Haptic1"

    func sysoundHapticInterface() -> BusInterface {
        var interface = BusInterface(Self.sysoundHapticInterface)
        addVibrate(to: &interface, "VibratePreset", naming: "preset") { [unowned self] name in
            try checkPreset(name)
            return .preset(name)
        }
        addVibrate(to: &interface, "VibrateComposition", naming: "composition") { text in
            do { return .score(try HapticComposition(parsing: text).score) } catch {
                throw BusError.invalidArgs("composition \"\(FeedbackHints.show(text))\": \(error)")
            }
        }
        return interface
    }

    /// Declares `method(s app_id, s NAME, d intensity) → b`, which vibrates
    /// what `source` makes of NAME (or refuses it) for the app that decides
    /// for the call (a sandbox's proved id, as for `Vibrate`), answering once
    /// the vibration started or failed.
    private func addVibrate(
        to interface: inout BusInterface, _ method: String, naming argument: String,
        source: @escaping (String) throws -> VibrateRequest.Source
    ) {
        interface.method(method, "ssd", arguments: ["app_id", argument, "intensity"], result: "b", results: ["success"]) { [unowned self] call in
            let m = call.message
            let claimed = try m.readString(), text = try m.readString(), intensity = try m.readDouble()
            try Self.checkApp(claimed)
            try Self.checkIntensity(intensity)
            let what = try source(text)
            let app = decidingApp(claimed: claimed, identity: identity(of: m), message: m)
            vibrate(VibrateRequest(what, intensity: intensity, app: app), answer: answerLater(m, method))
        }
    }

    static func checkIntensity(_ intensity: Double) throws {
        guard intensity.isFinite, VibrateRequest.intensityRange.contains(intensity) else {
            throw BusError.invalidArgs("intensity \(intensity) is outside 0–1; give 1 for full strength, 0.5 for half")
        }
    }

    /// A name the haptics engine has no preset of is the caller's mistake,
    /// whatever the policy would say. Without an engine (`[haptics] enabled
    /// = false`) nothing vibrates, and the call answers false as on a
    /// machine without a vibrator.
    func checkPreset(_ name: String) throws {
        guard let haptics = manager.haptics, !haptics.presetNames.contains(name) else { return }
        throw BusError.invalidArgs(
            "unknown haptic preset \"\(FeedbackHints.show(name))\"; known presets: \(haptics.presetNames.joined(separator: ", "))"
                + " (`sysound list presets` shows each one's pattern), or use VibrateComposition for primitives")
    }
}
