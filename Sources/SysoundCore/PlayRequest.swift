/// A request to play a sound, as the CLI, the library and the wire express it.
package struct PlayRequest: Sendable, Equatable, Hashable {
    /// What to play.
    package enum Source: Sendable, Equatable, Hashable {
        /// A name of the theme (or an alias, or an XDG sound-theme name).
        case name(String)
        /// An ad-hoc sound file.
        case file(String)
    }

    package var source: Source
    /// Overrides the sound's default category.
    package var category: SoundCategory?
    /// Scales the sound's level, 0–1 (a request can quiet a sound, never boost it).
    package var gain: Double
    /// Playback rate (pitch), 0.5–2.
    package var rate: Double
    /// Lower every other voice while this one plays (`playback` only).
    package var duck: Bool
    /// Loop a loopable sound until stopped.
    package var loop: Bool
    /// Start the sound's paired haptic with it.
    package var haptic: Bool
    /// Who asks (a D-Bus app id, or the socket's `app=`): per-app levels and
    /// the `important` allow-list apply by it. Nil: no app level.
    package var app: String?
    /// A profile this request may not exceed (feedbackd's `profile` hint): it can only lower.
    package var profile: FeedbackProfile?
    /// Asks to pierce silent mode (feedbackd's `important` hint); granted only
    /// to apps of the configuration's allow-list.
    package var important: Bool
    /// The sound server's role for the stream it plays on (`role=`, or a
    /// feedbackd theme's `media-role`); nil: the theme's, else the category's.
    package var role: MediaRole?

    package static let gainRange = 0.0...1.0
    package static let rateRange = 0.5...2.0

    package init(
        _ source: Source, category: SoundCategory? = nil, gain: Double = 1, rate: Double = 1,
        duck: Bool = false, loop: Bool = false, haptic: Bool = true,
        app: String? = nil, profile: FeedbackProfile? = nil, important: Bool = false, role: MediaRole? = nil
    ) {
        self.source = source
        self.category = category
        self.gain = gain
        self.rate = rate
        self.duck = duck
        self.loop = loop
        self.haptic = haptic
        self.app = app
        self.profile = profile
        self.important = important
        self.role = role
    }

    /// The longest app id accepted (D-Bus names are at most 255 bytes).
    package static let maximumAppLength = 255

    /// An app id as every face accepts it (socket `app=`, D-Bus `app_id`,
    /// `[apps."ID"]`): 1 to 255 bytes, no control characters.
    package static func isValidApp(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= maximumAppLength
            && !id.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
