import SysoundCore

/// Why a vibration request was not carried out. Device trouble never reaches
/// callers beyond `.noDevice`: removal, ENODEV and friends are handled inside.
package enum HapticsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No qualifying force-feedback device is open.
    case noDevice
    /// No preset by this name; `known` lists the ones there are.
    case unknownPreset(String, known: [String])
    /// Intensity or strength cap outside 0–1 (or not a number).
    case invalidLevel(name: String, value: Double)
    /// A pattern that breaks the limits of `HapticPattern`.
    case invalidPattern(String)
    /// A pattern of higher priority is running.
    case outranked(running: Int, requested: Int)
    /// `start()` was not called, or `shutdown()` was.
    case notRunning
    /// No device holds the vibration's effects yet (one just appeared, or its
    /// driver answers uploads late); asked not to wait, the engine skipped it
    /// and uploads them for the next request.
    case notUploaded
    /// The only devices there were refused our effect uploads (EINVAL and
    /// the like): nothing vibrated, and they are no longer used.
    case refused(device: String, path: String, reason: String)
    /// The device directory cannot be watched.
    case watchFailed(path: String, call: String, errno: Int32)

    package var description: String {
        switch self {
        case .noDevice:
            return "no haptic device: no built-in force-feedback vibrator with a usable effect (FF_RUMBLE, FF_CONSTANT or FF_PERIODIC sine) is available; see `sysound status`, or choose devices with [haptics] devices"
        case .unknownPreset(let name, let known):
            return "unknown haptic preset \(ControlValue.quoted(name)); known presets: \(known.sorted().joined(separator: ", "))"
        case .invalidLevel(let name, let value):
            return "\(name) \(value) is outside 0–1; give a number from 0 (off) to 1 (full)"
        case .invalidPattern(let why):
            return "invalid haptic pattern: \(why)"
        case .outranked(let running, let requested):
            return "a vibration of priority \(running) is running; priority \(requested) does not replace it"
        case .notRunning:
            return "the haptics engine is not running; call start() first"
        case .notUploaded:
            return "the vibration's effects are still being uploaded to the device; skipped so that it does not lag its sound"
        case .refused(let device, let path, let reason):
            return "not vibrated: the haptic device \(ControlValue.quoted(device)) (\(path)) refused the effect upload: \(reason); it is no longer used (see `sysound status`)"
        case .watchFailed(let path, let call, let e):
            return "cannot watch \(path) for input devices: \(call) failed with errno \(e)"
        }
    }

    /// Checks a pattern built in code against the limits the text form enforces.
    static func validate(_ pattern: HapticPattern) throws(HapticsError) {
        guard !pattern.steps.isEmpty else { throw .invalidPattern("it has no steps") }
        guard pattern.steps.count <= HapticPattern.maximumSteps else {
            throw .invalidPattern("\(pattern.steps.count) steps; at most \(HapticPattern.maximumSteps) are allowed")
        }
        for (i, step) in pattern.steps.enumerated() {
            guard step.magnitude.isFinite, step.magnitude >= 0, step.magnitude <= 1 else {
                throw .invalidPattern("step \(i + 1) has magnitude \(step.magnitude); expected 0–1")
            }
            guard step.durationMs > 0, step.durationMs <= HapticPattern.maximumStepMs else {
                throw .invalidPattern("step \(i + 1) lasts \(step.durationMs) ms; expected 1–\(HapticPattern.maximumStepMs)")
            }
        }
        guard pattern.durationMs <= HapticPattern.maximumTotalMs else {
            throw .invalidPattern("it lasts \(pattern.durationMs) ms; at most \(HapticPattern.maximumTotalMs) ms are allowed")
        }
    }

    static func checkLevel(_ value: Double, name: String) throws(HapticsError) {
        guard value.isFinite, value >= 0, value <= 1 else { throw .invalidLevel(name: name, value: value) }
    }
}
