/// The user's settings that decide whether a sound or a vibration may happen.
///
/// Read from the control files in the state directory (see `ControlFile`);
/// the service never writes them except on the user's explicit request.
package struct SystemState: Sendable, Equatable, Hashable {
    /// The ring/silent switch: silences everything but `playback`.
    package var silent: Bool
    /// The screen lock: silences `ambient` and `solo-ambient`.
    package var locked: Bool
    /// The system volume, 0–1. Multiplies every sound; 0 mutes all, playback included.
    package var volume: Double
    /// The haptics switch: when off, nothing vibrates.
    package var haptics: Bool
    /// Alerts vibrate together with their sound even when not silent.
    package var vibrateOnAlert: Bool
    /// An interruption (e.g. a phone call) is in progress.
    package var interrupted: Bool
    /// The flash for alerts.
    package var flash: FlashForAlerts

    package init(
        silent: Bool = false, locked: Bool = false, volume: Double = 1,
        haptics: Bool = true, vibrateOnAlert: Bool = false, interrupted: Bool = false, flash: FlashForAlerts = .off
    ) {
        self.silent = silent
        self.locked = locked
        self.volume = volume
        self.haptics = haptics
        self.vibrateOnAlert = vibrateOnAlert
        self.interrupted = interrupted
        self.flash = flash
    }

    /// The state with no control files at all.
    package static let defaults = SystemState()
}
