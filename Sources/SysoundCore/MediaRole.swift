/// What a sound is to the sound server: the `media.role` of the stream it
/// plays on, which the server's role policies key on (PulseAudio's
/// module-role-ducking and module-role-cork, WirePlumber's role-based sinks,
/// Plasma's mute of event sounds). sysound plays each role in use on a
/// stream of its own (docs/architecture.md, "Media roles").
///
/// The known roles are PulseAudio's documented ones (`PA_PROP_MEDIA_ROLE`)
/// and those feedbackd's themes and WirePlumber's role-based policy use.
/// Parsing ignores case (`Alarm`, `alarm`); `streamName` is what the stream
/// carries, one spelling per role, in this one place.
package enum MediaRole: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    // PulseAudio's roles (proplist.h), spelled as it documents them.
    case event, video, music, game, phone, animation, production, a11y, test
    // Phone roles: feedbackd's themes (0.8.9's default theme) and WirePlumber's
    // role-based loopbacks spell these capitalized.
    case notification, alarm, ringtone, emergency, alert, communication, navigation, assistant

    /// The `media.role` value the stream carries. PulseAudio's roles in its
    /// lower case; the phone roles as feedbackd's theme and WirePlumber's
    /// `device.intended-roles` spell them, so server rules written for
    /// feedbackd's streams match sysound's unchanged (servers compare exactly).
    package var streamName: String {
        switch self {
        case .event, .video, .music, .game, .phone, .animation, .production, .a11y, .test: rawValue
        case .notification: "Notification"
        case .alarm: "Alarm"
        case .ringtone: "Ringtone"
        case .emergency: "Emergency"
        case .alert: "Alert"
        case .communication: "Communication"
        case .navigation: "Navigation"
        case .assistant: "Assistant"
        }
    }

    /// The wire and configuration spelling (`role=alarm`).
    package var description: String { rawValue }

    /// Parses a role as a theme, a request or feedbackd's JSON spells it, in any case.
    package init?(parsing text: String) {
        self.init(rawValue: text.lowercased())
    }

    /// The spellings `init(parsing:)` accepts, for messages.
    package static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The role a sound of `category` gets when neither the request nor the
    /// theme names one. Only `playback` leaves the event stream: the sounds
    /// the user asked for (alarms, ringtones) must not fall under a desktop's
    /// mute of event sounds (Plasma's), and must not wait behind a theme's
    /// UI sounds; alerts stay with the preloaded UI sounds (a theme entry may
    /// say `role = "notification"`).
    package static func defaultRole(for category: SoundCategory) -> MediaRole {
        switch category {
        case .ambient, .soloAmbient, .alert: .event
        case .playback: .alarm
        }
    }

    /// The role a play gets: the request's, else the sound's in its theme,
    /// else the category's default.
    package static func of(request: MediaRole?, entry: MediaRole?, category: SoundCategory) -> MediaRole {
        request ?? entry ?? defaultRole(for: category)
    }
}
