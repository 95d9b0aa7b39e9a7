/// The desktop's own switches, as the daemon follows them: GNOME's sound and
/// notification keys, Plasma's notification inhibition and feedbackd's own
/// settings (its panel in phosh-mobile-settings). Inputs of `Policy.decide`
/// beside the control files' `SystemState`: the desktop's settings app is
/// where people flip these, so they are not mirrored into control files
/// (except feedbackd's `profile`, which *is* silent mode and so is one).
///
/// Every field's default is "the desktop says nothing": a machine without
/// GNOME's schemas, Plasma or a session bus decides as before.
package struct DesktopState: Sendable, Equatable, Hashable {
    /// Do not disturb (GNOME `show-banners` false, Plasma `Inhibited`):
    /// alert sounds are silent unless `important` from an allowed app.
    package var doNotDisturb: Bool
    /// GNOME `event-sounds`: false silences every sound but `playback`.
    package var eventSounds: Bool
    /// GNOME `input-feedback-sounds`: false silences the theme's input
    /// feedback sounds (those marked `input = true`: taps, keys).
    package var inputFeedbackSounds: Bool
    /// feedbackd's per-app `profile` (relocatable schema), by app id: like
    /// `[apps."id"] profile`, and the lower of the two holds.
    package var appProfiles: [String: FeedbackProfile]
    /// feedbackd's `allow-important`: apps whose `important` requests pierce
    /// silent mode and do not disturb, besides `[dbus] allow_important`.
    package var allowImportant: Set<String>
    /// feedbackd's `max-haptic-strength`, 0–1: every vibration is scaled by it.
    package var maxHapticStrength: Double
    /// feedbackd's `prefer-flash`: a theme's LED feedback shows on the
    /// camera's flash LED instead of the status LED.
    package var preferFlash: Bool

    package init(
        doNotDisturb: Bool = false, eventSounds: Bool = true, inputFeedbackSounds: Bool = true,
        appProfiles: [String: FeedbackProfile] = [:], allowImportant: Set<String> = [], maxHapticStrength: Double = 1,
        preferFlash: Bool = false
    ) {
        self.doNotDisturb = doNotDisturb
        self.eventSounds = eventSounds
        self.inputFeedbackSounds = inputFeedbackSounds
        self.appProfiles = appProfiles
        self.allowImportant = allowImportant
        self.maxHapticStrength = maxHapticStrength
        self.preferFlash = preferFlash
    }

    /// No desktop source, or none that says anything.
    package static let defaults = DesktopState()

    /// The vibration scale, clamped (NaN: none).
    package var hapticScale: Double { maxHapticStrength.isFinite ? min(max(maxHapticStrength, 0), 1) : 0 }
}
