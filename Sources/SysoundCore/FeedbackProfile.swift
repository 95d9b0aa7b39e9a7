/// feedbackd's three feedback levels, as sysound's settings express them.
/// One state, two faces: the D-Bus `Profile` property reads and writes the
/// same control files as `sysound state`.
///
/// - `full`: sounds and haptics.
/// - `quiet`: silent mode on (alerts vibrate instead of sounding).
/// - `silent`: silent mode on and haptics off.
///
/// Ordered from the least to the most feedback: a request's hint or an app's
/// level can only move down this order (`min`), never up.
package enum FeedbackProfile: String, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    case silent
    case quiet
    case full

    package var description: String { rawValue }

    /// The profile the user's settings amount to.
    package init(state: SystemState) {
        if !state.silent { self = .full } else { self = state.haptics ? .quiet : .silent }
    }

    /// The settings with this profile's limits applied: a lower profile turns
    /// silent mode on (and, `silent`, haptics off); it never turns either back.
    package func limiting(_ state: SystemState) -> SystemState {
        var state = state
        if self <= .quiet { state.silent = true }
        if self == .silent { state.haptics = false }
        return state
    }

    /// The control-file values that select this profile (silent, haptics).
    package var settings: (silent: Bool, haptics: Bool) {
        switch self {
        case .full: (false, true)
        case .quiet: (true, true)
        case .silent: (true, false)
        }
    }

    package static func < (a: FeedbackProfile, b: FeedbackProfile) -> Bool { a.rank < b.rank }

    private var rank: Int {
        switch self {
        case .silent: 0
        case .quiet: 1
        case .full: 2
        }
    }

    /// The names, for messages ("full, quiet, silent").
    package static let names = [FeedbackProfile.full, .quiet, .silent].map(\.rawValue).joined(separator: ", ")
}

/// A level an app is given (`[apps."org.example.App"]`): a profile it cannot
/// exceed and a gain ≤ 1, for every face (socket `app=`, D-Bus `app_id`).
package struct AppLevel: Sendable, Equatable, Hashable {
    package var profile: FeedbackProfile
    package var gain: Double

    package init(profile: FeedbackProfile = .full, gain: Double = 1) {
        self.profile = profile
        self.gain = gain
    }
}
