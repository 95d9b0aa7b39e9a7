/// One sound of a theme, as the theme index describes it.
package struct SoundEntry: Sendable, Equatable, Hashable {
    /// The canonical name (`tap`, `notification`).
    package var name: String
    /// The sound file: absolute, or relative to the theme directory.
    package var file: String
    /// Relative level within the theme's mix, 0–1.
    package var gain: Double
    /// The category used when a request names none.
    package var category: SoundCategory
    /// Tie-breaker within a category when a voice must be stolen (higher survives).
    package var priority: Int
    /// The haptic preset that starts together with the sound, if any.
    package var haptic: String?
    /// The haptic described as a score (the theme's `haptic = "NAME.ahap"`),
    /// which the haptics engine defines as the preset `haptic` names.
    package var hapticScore: HapticScore?
    /// Other names that resolve to this sound (e.g. freedesktop names).
    package var aliases: [String]
    /// Whether the clip loops seamlessly when a request asks it to loop.
    package var loopable: Bool
    /// Input feedback (a tap, a key press): the desktop's "input feedback
    /// sounds" switch governs it (the theme's `input = true`).
    package var input: Bool
    /// The sound server's role for its stream (the theme's `role`); nil: the
    /// category's default (`MediaRole.defaultRole(for:)`).
    package var role: MediaRole?

    package init(
        name: String, file: String, gain: Double = 1, category: SoundCategory = .ambient,
        priority: Int = 0, haptic: String? = nil, aliases: [String] = [], loopable: Bool = false,
        input: Bool = false, role: MediaRole? = nil
    ) {
        self.name = name
        self.file = file
        self.gain = gain
        self.category = category
        self.priority = priority
        self.haptic = haptic
        self.aliases = aliases
        self.loopable = loopable
        self.input = input
        self.role = role
    }
}
