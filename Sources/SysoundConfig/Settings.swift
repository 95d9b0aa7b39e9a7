import FoundationEssentials
import Glibc
import SysoundCore

/// The haptics engine's knobs (`[haptics]`).
package struct HapticSettings: Sendable, Equatable {
    /// Named patterns (`[haptics.presets]`): built-in defaults, then the file's.
    package var presets: [String: HapticPattern]
    /// Every magnitude is multiplied by this, 0–1.
    package var strengthCap = 1.0
    /// Which force-feedback devices vibrate: device paths, names or
    /// shell-style name patterns, or "all"; empty means the built-in
    /// vibrators only (udev's FEEDBACKD_TYPE=vibra, else not USB or
    /// Bluetooth and not a game controller).
    package var devices: [String] = []
    /// The older `device_names` key: name patterns, folded into `devices`.
    package var deviceNames: [String] = []
    /// The device profile when the machine's device tree or DMI name does
    /// not choose one (`HapticProfile.shipped`); nil: none.
    package var profile: String?

    /// Starts from the core's built-in presets (`HapticPresets.defaults`), the
    /// same as the shipped file's (a test keeps them equal), so a file that
    /// omits a preset the theme names still works.
    package init(presets: [String: HapticPattern] = HapticPresets.defaults) {
        self.presets = presets
    }
}

/// The notification LED and the flash (`[leds]`).
package struct LedSettings: Sendable, Equatable {
    /// Whether the daemon drives LEDs at all.
    package var enabled = true
    /// LED names or shell patterns to use instead of feedbackd's choice
    /// (udev's FEEDBACKD_TYPE=led, `*:status`, `*:indicator`, `*:flash`, `*:torch`).
    package var devices: [String] = []
    /// LED names or shell patterns never to use.
    package var exclude: [String] = []

    package init() {}
}

/// Fallback to installed freedesktop sound themes (`[xdg]`).
package struct XDGSettings: Sendable, Equatable {
    package var fallback = true
    /// The XDG theme tried first; `freedesktop` is always tried last.
    package var theme = "freedesktop"
    /// The preferred output profile (spec: OutputProfile); `stereo` is the fallback.
    package var profile = "stereo"

    package init() {}
}

/// The D-Bus face (`[dbus]`): feedbackd's `org.sigxcpu.Feedback` on the session bus.
package struct DBusSettings: Sendable, Equatable {
    /// Serve the interface when a session bus is reachable.
    package var enabled = true
    /// Take the name from a running feedbackd (true), or queue behind it (false).
    package var replace = false
    /// The feedbackd theme D-Bus events resolve through first (NAME.json in
    /// feedbackd's theme directories); `$device` is the device's own theme by
    /// device-tree compatible, else `default`. The one place the name is read
    /// from until feedbackd's own `theme` setting is followed.
    package var feedbackTheme = FeedbackdTheme.deviceName

    package init() {}

    /// The bus name, object path and interfaces: feedbackd's, so its clients work unchanged.
    package static let busName = "org.sigxcpu.Feedback"
}

/// The whole configuration, typed. Loaded by `SysoundConfiguration.load`.
package struct SysoundConfiguration: Sendable, Equatable {
    /// The file this came from; nil for built-in defaults.
    package var file: String?
    /// The data directory (holding `Sounds/` and `config/`) that relative paths use.
    package var dataDirectory: String
    /// Theme directories, absolute, first wins.
    package var themePaths: [String]
    package var xdg = XDGSettings()
    /// Category gains and the alert haptic: what `Policy.decide` takes.
    package var policy = PolicySettings(
        categoryGains: Dictionary(uniqueKeysWithValues: SoundCategory.allCases.map { ($0, 1.0) }),
        defaultAlertHaptic: BuiltInHaptic.alert.rawValue)
    package var audio = AudioSettings()
    package var haptics = HapticSettings()
    package var leds = LedSettings()
    /// The state directory, absolute; nil means the default rule (docs/configuration.md, "The state directory").
    package var stateDirectory: String?
    /// Group allowed on the socket; nil means only the owner.
    package var socketGroup: String?
    /// Whether `play file=` from another user (a `socket_group` member) may
    /// name any file; false: only regular files inside the sound directories.
    package var othersMayPlayAnyFile = false
    /// Extra names (`[aliases]`): alias → target (a sound or another alias).
    package var aliases: [String: String] = [:]
    /// The desktop services whose screen lock the daemon follows (`[session]
    /// lock_sources`); empty: the `locked` control file alone.
    package var lockSources: [LockSource] = LockSource.allCases
    /// The D-Bus face (`[dbus]`); its allow-list and the per-app levels
    /// (`[apps."id"]`) are policy, in `policy`.
    package var dbus = DBusSettings()

    /// The defaults, with the default theme of `dataDirectory`.
    package init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        self.themePaths = [Paths.join(dataDirectory, "Sounds")]
    }
}
