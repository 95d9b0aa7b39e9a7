/// A request to play a sound, as the CLI, the library and the wire express it.
public struct PlayRequest: Sendable, Equatable, Hashable {
    /// What to play.
    public enum Source: Sendable, Equatable, Hashable {
        /// A name of the theme (or an alias, or an XDG sound-theme name).
        case name(String)
        /// An ad-hoc sound file.
        case file(String)
    }

    public var source: Source
    /// Overrides the sound's default category.
    public var category: SoundCategory?
    /// Scales the sound's level, 0–1 (a request can quiet a sound, never boost it).
    public var gain: Double
    /// Playback rate (pitch), 0.5–2.
    public var rate: Double
    /// Lower every other voice while this one plays (`playback` only).
    public var duck: Bool
    /// Loop a loopable sound until stopped.
    public var loop: Bool
    /// Start the sound's paired haptic with it.
    public var haptic: Bool

    public static let gainRange = 0.0...1.0
    public static let rateRange = 0.5...2.0

    public init(
        _ source: Source, category: SoundCategory? = nil, gain: Double = 1, rate: Double = 1,
        duck: Bool = false, loop: Bool = false, haptic: Bool = true
    ) {
        self.source = source
        self.category = category
        self.gain = gain
        self.rate = rate
        self.duck = duck
        self.loop = loop
        self.haptic = haptic
    }
}
