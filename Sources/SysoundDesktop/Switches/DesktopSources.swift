import Logging
import SysoundPlatform
import SysoundCore
import SysoundFeedback
import SysoundState

/// The desktop's own switches, followed by the daemon as events on its loop
/// and given to the manager as the policy's `DesktopState`:
///
/// - GNOME (GSettings): org.gnome.desktop.sound `event-sounds`,
///   `input-feedback-sounds`, `theme-name` (the XDG fallback theme) and
///   org.gnome.desktop.notifications `show-banners` (false: do not disturb);
/// - feedbackd's settings (GSettings): `profile` ⇄ silent mode both ways,
///   `theme`, `allow-important`, `max-haptic-strength`, and each app's
///   `profile` (org.sigxcpu.feedbackd.application);
/// - KDE Plasma: org.freedesktop.Notifications `Inhibited` on the session bus.
///
/// Every source is optional: a missing schema or session bus is one log
/// line, and the policy decides as if that source said nothing.
/// Everything here runs on the loop's thread.
package final class DesktopSources: @unchecked Sendable {
    // @unchecked: loop thread only (the manager's new-app hook posts to it).
    let manager: FeedbackManager
    let loop: EventLoop
    let logger: Logger
    var readings = DesktopReadings()
    // GSettings (DesktopSources+GSettings.swift)
    var glib: GLibContext?
    var sound: GSettingsObject?
    var notifications: GSettingsObject?
    var feedbackd: GSettingsObject?
    var appSettings: [String: GSettingsObject] = [:]
    /// Set while feedbackd's profile is being written to the control files:
    /// their intermediate state (silent on, haptics not yet off) is not written back.
    var applyingProfile = false
    /// Whether dconf's writer is on the session bus (or can be activated):
    /// writing without it fails, and dconf then reverts the key, which would
    /// undo the user's silent mode. Other backends are always writable.
    var dconfWriter = false
    /// GSettings' backend type (`GSettingsObject.backendName`).
    var backend = "none"
    /// The missing writer is said once, not at every change of silent mode.
    var saidNoWriter = false
    // Plasma (DesktopSources+Plasma.swift)
    var sessionBus: BusConnection?
    var busUser: Int?
    var slots: [BusSlot] = []
    var plasmaStatus = "no session bus"
    var stopped = false
    /// The XDG theme given to the manager (nil: the configuration's).
    var appliedTheme: String?
    /// The feedbackd theme name last handed to the manager (feedbackd's `theme`, when the user set it).
    var appliedFeedbackdTheme: String?

    /// At most this many apps' feedbackd settings are followed at once.
    static let maximumApps = 64
    var saidAppCap = false

    private init(manager: FeedbackManager, loop: EventLoop, logger: Logger) {
        self.manager = manager
        self.loop = loop
        self.logger = logger
    }

    /// Starts following (call on the loop's thread, or before the loop runs
    /// on the thread that will run it): reads every source now, then follows.
    /// `watcher` reports control-file changes (silent mode → feedbackd's profile).
    package static func start(
        manager: FeedbackManager, loop: EventLoop, sessionBus: BusConnection?, watcher: StateWatcher?, logger: Logger
    ) -> DesktopSources {
        let sources = DesktopSources(manager: manager, loop: loop, logger: logger)
        sources.startGSettings()
        if let sessionBus { sources.startPlasma(on: sessionBus) }
        watcher?.onChange { [weak sources] old, new in sources?.controlFilesChanged(from: old, to: new) }
        manager.onNewApp { [weak sources, loop] app in
            guard let sources else { return }
            if loop.isLoopThread {
                sources.followApp(app)
            } else {
                loop.post { sources.followApp(app) }
            }
        }
        sources.publish()
        return sources
    }

    /// Stops following (on the loop's thread, or after the loop ended).
    package func stop() {
        guard !stopped else { return }
        stopped = true
        stopPlasma()
        appSettings = [:]
        sound = nil
        notifications = nil
        feedbackd = nil
        glib?.stop()
        glib = nil
    }

    /// What the sources say now.
    package var current: DesktopReadings { readings }

    /// Hands the readings to the manager: the policy's input, the XDG theme
    /// and the status lines.
    func publish() {
        let state = readings.desktop
        if state != manager.desktop {
            manager.setDesktop(state)
            logger.info("desktop: do not disturb \(state.doNotDisturb ? "on" : "off"), event sounds \(state.eventSounds ? "on" : "off"), input feedback sounds \(state.inputFeedbackSounds ? "on" : "off")")
        }
        if readings.soundTheme != appliedTheme {
            appliedTheme = readings.soundTheme
            manager.setXDGTheme(appliedTheme)
            logger.info("desktop: XDG sound theme \(manager.xdgTheme ?? "none (fallback off)")")
        }
        if readings.feedbackdTheme != appliedFeedbackdTheme {
            appliedFeedbackdTheme = readings.feedbackdTheme
            manager.setFeedbackdThemeName(appliedFeedbackdTheme)
            logger.info("desktop: feedbackd theme \(appliedFeedbackdTheme ?? "as configured ([dbus] feedback_theme)")")
        }
        let fields = readings.statusFields(gnome: sound != nil || notifications != nil, feedbackd: feedbackd != nil, plasma: plasmaStatus)
        for (key, value) in fields { manager.setStatus(key, value) }
        manager.setStatus("gsettings-backend", backend)
    }
}
