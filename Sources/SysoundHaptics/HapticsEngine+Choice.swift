import SysoundCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A force-feedback device the engine found, used or not, and why: what
/// `sysound status` lists.
package struct HapticDeviceStatus: Sendable, Equatable {
    package var path: String
    package var name: String
    package var used: Bool
    /// "udev FEEDBACKD_TYPE=vibra", "game controller …", "uploads refused: …".
    package var reason: String
    /// The effect kind played on it (or that would be), nil when it has none.
    package var effect: EffectKind?
    /// What its motor can play: how a `HapticScore` is rendered for it.
    package var motor: MotorAbility
}

/// Which devices are used and why, recorded for `sysound status`.
extension HapticsEngine {
    /// Whether the device is used, and why (`DeviceChoice`).
    func verdict(for device: any ForceFeedbackDevice) -> DeviceVerdict {
        choice.verdict(path: device.path, device.capabilities)
    }

    /// Notes a force-feedback device and its verdict for `deviceReport`
    /// (loop). Nodes without force feedback (keyboards, touchscreens) are
    /// not listed.
    func record(_ device: any ForceFeedbackDevice, _ verdict: DeviceVerdict) {
        let c = device.capabilities
        guard c.rumble || c.periodic || c.constant || c.effectSlots > 0 else { return }
        owned.report[device.path] = HapticDeviceStatus(
            path: device.path, name: c.name, used: verdict.used, reason: verdict.reason, effect: c.effectKind,
            motor: MotorAbility.of(deviceName: c.name, profile: profile?.profile))
        owned.reportChanged = true
    }

    /// A device error as a person reads it, without the path (shown beside it).
    static func plainReason(_ error: DeviceError) -> String {
        switch error {
        case .failed(_, let call, let e): "\(call) failed with errno \(e) (\(String(cString: strerror(e))))"
        default: error.description
        }
    }
}
