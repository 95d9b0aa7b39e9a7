import SysoundCore

/// What each desktop source says now, as read (nil: the source is not
/// there: no schema, no Plasma, no session bus), and the one `DesktopState`
/// the policy is given. Pure: the rules of combination live here.
package struct DesktopReadings: Sendable, Equatable {
    /// org.gnome.desktop.notifications `show-banners` (false: do not disturb).
    package var showBanners: Bool?
    /// org.gnome.desktop.sound `event-sounds`.
    package var eventSounds: Bool?
    /// org.gnome.desktop.sound `input-feedback-sounds`, when set; nil while
    /// it is at the schema's default (see `desktop`).
    package var inputFeedbackSounds: Bool?
    /// org.gnome.desktop.sound `theme-name`, when set; nil at the default
    /// (the configuration's `[xdg] theme` holds then).
    package var soundTheme: String?
    /// org.freedesktop.Notifications `Inhibited` (Plasma); nil: no such
    /// property (another notification server, or none).
    package var plasmaInhibited: Bool?
    /// org.sigxcpu.feedbackd `profile`, `theme`, `allow-important`, `max-haptic-strength`.
    package var feedbackdProfile: FeedbackProfile?
    package var feedbackdTheme: String?
    package var allowImportant: [String]?
    package var maxHapticStrength: Double?
    /// org.sigxcpu.feedbackd `prefer-flash` (0.8.x; nil: not in this schema).
    package var preferFlash: Bool?
    /// org.sigxcpu.feedbackd.application `profile`, by app id (apps that asked).
    package var appProfiles: [String: FeedbackProfile] = [:]

    package init() {}

    /// The switches the policy is given.
    ///
    /// - Do not disturb: GNOME's or Plasma's, whichever says so.
    /// - Input feedback sounds and the sound theme: GNOME's key governs once
    ///   it is set (GNOME Settings, `gsettings set`); at the schema's default
    ///   sysound's own holds, as on a desktop without the schema: for input
    ///   feedback that is on, because the default (false) is GTK's "widgets
    ///   make no sound" and an app that asks sysound for a tap has chosen to
    ///   make one; for the theme, the configuration's `[xdg] theme`.
    /// - Per-app profiles: feedbackd's, the lower of it and `[apps]` holding
    ///   (`Policy`); `full` is no limit and is left out.
    package var desktop: DesktopState {
        var d = DesktopState()
        d.doNotDisturb = showBanners == false || plasmaInhibited == true
        d.eventSounds = eventSounds ?? true
        d.inputFeedbackSounds = inputFeedbackSounds ?? true
        d.appProfiles = appProfiles.filter { $0.value != .full }
        d.allowImportant = Set(allowImportant ?? [])
        d.maxHapticStrength = maxHapticStrength ?? 1
        d.preferFlash = preferFlash ?? false
        return d
    }

    /// feedbackd's path for an app's settings: the id lowercased, every
    /// character outside [a-z0-9-] a '-' (sm.puri.Phosh → sm-puri-phosh).
    package static func munged(_ app: String) -> String {
        String(app.lowercased().unicodeScalars.map { s -> Character in
            (s >= "a" && s <= "z") || (s >= "0" && s <= "9") || s == "-" ? Character(s) : "-"
        })
    }

    /// `sysound status` lines: one per source, saying what it reads (or why nothing).
    package func statusFields(gnome: Bool, feedbackd: Bool, plasma: String) -> [String: String] {
        func show(_ b: Bool?) -> String { b.map { $0 ? "true" : "false" } ?? "?" }
        var fields: [String: String] = [:]
        if gnome {
            fields["gnome-show-banners"] = show(showBanners)
            fields["gnome-event-sounds"] = show(eventSounds)
            fields["gnome-input-feedback-sounds"] = inputFeedbackSounds.map { show($0) } ?? "default (not followed until set)"
            fields["gnome-theme-name"] = soundTheme ?? "default (configuration's [xdg] theme)"
        } else {
            fields["gnome"] = "no schema (org.gnome.desktop.sound, .notifications): not followed"
        }
        if feedbackd {
            fields["feedbackd-profile"] = feedbackdProfile?.rawValue ?? "?"
            fields["feedbackd-theme-setting"] = feedbackdTheme ?? "?"
            fields["feedbackd-allow-important"] = allowImportant.map { $0.isEmpty ? "none" : $0.joined(separator: ",") }
                ?? "not in this schema"
            fields["feedbackd-max-haptic-strength"] = maxHapticStrength.map { "\($0)" } ?? "not in this schema"
            fields["feedbackd-prefer-flash"] = preferFlash.map { show($0) } ?? "not in this schema"
            let apps = appProfiles.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }
            if !apps.isEmpty { fields["feedbackd-apps"] = apps.joined(separator: ",") }
        } else {
            fields["feedbackd"] = "no schema (org.sigxcpu.feedbackd): not followed"
        }
        fields["plasma-inhibited"] = plasma
        return fields
    }
}
