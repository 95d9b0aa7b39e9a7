import Foundation
import SysoundCore

/// The haptics engine's knobs (`[haptics]`).
public struct HapticSettings: Sendable, Equatable {
    /// Named patterns (`[haptics.presets]`): built-in defaults, then the file's.
    public var presets: [String: HapticPattern]
    /// Every magnitude is multiplied by this, 0–1.
    public var strengthCap = 1.0
    /// Which force-feedback devices vibrate: device paths, names or
    /// shell-style name patterns, or "all"; empty means the built-in
    /// vibrators only (udev's FEEDBACKD_TYPE=vibra, else not USB or
    /// Bluetooth and not a game controller).
    public var devices: [String] = []
    /// The older `device_names` key: name patterns, folded into `devices`.
    public var deviceNames: [String] = []
    /// The device profile when the machine's device tree or DMI name does
    /// not choose one (`HapticProfile.shipped`); nil: none.
    public var profile: String?

    /// Starts from the core's built-in presets (`HapticPresets.defaults`), the
    /// same as the shipped file's (a test keeps them equal), so a file that
    /// omits a preset the theme names still works.
    public init(presets: [String: HapticPattern] = HapticPresets.defaults) {
        self.presets = presets
    }
}

/// The notification LED and the flash (`[leds]`).
public struct LedSettings: Sendable, Equatable {
    /// Whether the daemon drives LEDs at all.
    public var enabled = true
    /// LED names or shell patterns to use instead of feedbackd's choice
    /// (udev's FEEDBACKD_TYPE=led, `*:status`, `*:indicator`, `*:flash`, `*:torch`).
    public var devices: [String] = []
    /// LED names or shell patterns never to use.
    public var exclude: [String] = []

    public init() {}
}

/// Fallback to installed freedesktop sound themes (`[xdg]`).
public struct XDGSettings: Sendable, Equatable {
    public var fallback = true
    /// The XDG theme tried first; `freedesktop` is always tried last.
    public var theme = "freedesktop"
    /// The preferred output profile (spec: OutputProfile); `stereo` is the fallback.
    public var profile = "stereo"

    public init() {}
}

/// The D-Bus face (`[dbus]`): feedbackd's `org.sigxcpu.Feedback` on the session bus.
public struct DBusSettings: Sendable, Equatable {
    /// Serve the interface when a session bus is reachable.
    public var enabled = true
    /// Take the name from a running feedbackd (true), or queue behind it (false).
    public var replace = false
    /// The feedbackd theme D-Bus events resolve through first (NAME.json in
    /// feedbackd's theme directories); `$device` is the device's own theme by
    /// device-tree compatible, else `default`. The one place the name is read
    /// from until feedbackd's own `theme` setting is followed.
    public var feedbackTheme = FeedbackdTheme.deviceName

    public init() {}

    /// The bus name, object path and interfaces: feedbackd's, so its clients work unchanged.
    public static let busName = "org.sigxcpu.Feedback"
}

/// The whole configuration, typed. Loaded by `SysoundConfiguration.load`.
public struct SysoundConfiguration: Sendable, Equatable {
    /// The file this came from; nil for built-in defaults.
    public var file: String?
    /// The data directory (holding `Sounds/` and `config/`) that relative paths use.
    public var dataDirectory: String
    /// Theme directories, absolute, first wins.
    public var themePaths: [String]
    public var xdg = XDGSettings()
    /// Category gains and the alert haptic: what `Policy.decide` takes.
    public var policy = PolicySettings(
        categoryGains: Dictionary(uniqueKeysWithValues: SoundCategory.allCases.map { ($0, 1.0) }),
        defaultAlertHaptic: BuiltInHaptic.alert.rawValue)
    public var audio = AudioSettings()
    public var haptics = HapticSettings()
    public var leds = LedSettings()
    /// The state directory, absolute; nil means the default rule (docs/configuration.md, "The state directory").
    public var stateDirectory: String?
    /// Group allowed on the socket; nil means only the owner.
    public var socketGroup: String?
    /// Whether `play file=` from another user (a `socket_group` member) may
    /// name any file; false: only regular files inside the sound directories.
    public var othersMayPlayAnyFile = false
    /// Extra names (`[aliases]`): alias → target (a sound or another alias).
    public var aliases: [String: String] = [:]
    /// The desktop services whose screen lock the daemon follows (`[session]
    /// lock_sources`); empty: the `locked` control file alone.
    public var lockSources: [LockSource] = LockSource.allCases
    /// The D-Bus face (`[dbus]`); its allow-list and the per-app levels
    /// (`[apps."id"]`) are policy, in `policy`.
    public var dbus = DBusSettings()

    /// The defaults, with the default theme of `dataDirectory`.
    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        self.themePaths = [Paths.join(dataDirectory, "Sounds")]
    }
}
