/// The flash for alerts (iOS's "LED Flash for Alerts" with "Flash on Silent",
/// Android's "Flash notifications"): alerts and the sounds the user asked
/// for (categories `alert` and `playback`) also flash a light, for people who
/// cannot hear them. The `flash` control file.
public enum FlashForAlerts: String, Sendable, Equatable, Hashable, CaseIterable {
    case off
    /// Every such sound flashes.
    case on
    /// Only while silent mode is on.
    case silent

    /// Whether a sound of `category` flashes in `state`.
    package func flashes(_ category: SoundCategory, state: SystemState) -> Bool {
        guard category.flashesForAlerts, !state.interrupted else { return false }
        switch self {
        case .off: return false
        case .on: return true
        case .silent: return state.silent
        }
    }

    public static let spelling = "on, off or silent (only while silent mode is on)"

    /// Accepts `on`/`off` and every spelling of a switch (`1`, `yes`…), and `silent`.
    package init(parsing text: String) throws(ControlValueError) {
        let t = ControlValue.trimmed(text).lowercased()
        if t == "silent" {
            self = .silent
            return
        }
        do {
            self = try ControlValue.bool(t) ? .on : .off
        } catch {
            throw ControlValueError(found: ControlValue.quoted(text), expected: Self.spelling)
        }
    }
}

extension SoundCategory {
    /// Alerts and the sounds the user asked for (messages, calls, alarms).
    public var flashesForAlerts: Bool { self == .alert || self == .playback }
}
