import Logging
import SysoundCore
import SysoundState

/// GNOME's keys and feedbackd's settings through GSettings, on a GLib
/// context the loop drives (`GLibContext`).
///
/// Why libgio rather than dconf's `Notify` signal and a GVDB reader of our
/// own: GSettings reads the schemas' defaults (a reset key is its default,
/// not "absent"), knows the keyfile and memory backends as well as dconf,
/// layers the system databases (lockdown, distribution defaults) as GNOME
/// itself does, and writes feedbackd's `profile` through the same writer
/// GNOME Settings uses. dconf's own client (the GSettings backend) listens
/// for `Notify` on its GDBus thread and hands changes to our context: no
/// polling, and no file format of dconf's to keep up with.
extension DesktopSources {
    static let soundSchema = "org.gnome.desktop.sound"
    static let notificationsSchema = "org.gnome.desktop.notifications"
    static let feedbackdSchema = "org.sigxcpu.feedbackd"
    static let feedbackdAppSchema = "org.sigxcpu.feedbackd.application"

    func startGSettings() {
        do {
            glib = try GLibContext(loop: loop, logger: logger)
        } catch {
            return logger.warning("desktop settings not followed: \(error)")
        }
        backend = GSettingsObject.backendName
        // Without dconf's backend GLib falls back to its keyfile (or memory) backend:
        // the desktop's settings apps write to dconf, so their keys read as defaults.
        if backend != "DConfSettingsBackend" && getenv("GSETTINGS_BACKEND") == nil {
            logger.notice("GSettings has no dconf backend here (it uses \(backend); install dconf-gsettings-backend): settings GNOME writes to dconf are not seen")
        }
        openGSettings()
        let missing = [Self.soundSchema, Self.notificationsSchema, Self.feedbackdSchema].filter { !GSettingsObject.isInstalled($0) }
        if !missing.isEmpty {
            logger.notice("GSettings schema\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", ")) not installed; \(missing.count > 1 ? "those settings are" : "that one is") not followed")
        }
        startProfileSync()
    }

    /// (Re)creates the GSettings objects and reads every key: at start, and
    /// after the session bus came back (dconf's client subscribes to its
    /// changes when the object is made).
    func openGSettings() {
        // The old objects go first: dconf's client subscribes a path when
        // its first watcher comes and not again while one remains.
        let apps = Array(appSettings.keys)
        appSettings = [:]
        sound = nil
        notifications = nil
        feedbackd = nil
        sound = GSettingsObject(schema: Self.soundSchema)
        notifications = GSettingsObject(schema: Self.notificationsSchema)
        feedbackd = GSettingsObject(schema: Self.feedbackdSchema)
        // Connected before the first read: GSettings only reports keys read
        // since a handler was connected.
        sound?.onChange { [unowned self] _ in readGnome(); publish() }
        notifications?.onChange { [unowned self] _ in readGnome(); publish() }
        feedbackd?.onChange { [unowned self] key in
            readFeedbackd()
            if key == "profile" { profileChangedInDconf() }
            publish()
        }
        readGnome()
        readFeedbackd()
        readings.appProfiles = [:]
        for app in apps { followApp(app) }
    }

    func readGnome() {
        readings.showBanners = notifications?.bool("show-banners")
        readings.eventSounds = sound?.bool("event-sounds")
        readings.inputFeedbackSounds = sound?.isSet("input-feedback-sounds") == true ? sound?.bool("input-feedback-sounds") : nil
        readings.soundTheme = sound?.isSet("theme-name") == true ? sound?.string("theme-name").flatMap(validTheme) : nil
    }

    /// A theme name is a directory name; anything else is one warning and ignored.
    func validTheme(_ name: String) -> String? {
        if !name.isEmpty, !name.contains("/" as Character), name != ".", name != ".." { return name }
        logger.warning("org.gnome.desktop.sound theme-name \"\(name)\" is not a theme directory name; ignored")
        return nil
    }

    func readFeedbackd() {
        guard let feedbackd else { return }
        let profile = feedbackd.string("profile")
        readings.feedbackdProfile = profile.flatMap(FeedbackProfile.init(rawValue:))
        if let profile, readings.feedbackdProfile == nil {
            logger.warning("org.sigxcpu.feedbackd profile \"\(profile)\" is not one of \(FeedbackProfile.names); ignored")
        }
        // Only a theme the user chose replaces `[dbus] feedback_theme`: the
        // schema's default ("default") would hide the device's own theme.
        readings.feedbackdTheme = feedbackd.isSet("theme") ? feedbackd.string("theme") : nil
        readings.allowImportant = feedbackd.strings("allow-important")
        readings.maxHapticStrength = feedbackd.double("max-haptic-strength")
        readings.preferFlash = feedbackd.bool("prefer-flash")
    }

    /// Follows an app's feedbackd settings from its first request on
    /// (GSettings cannot list the apps that have some).
    func followApp(_ app: String) {
        guard !stopped, glib != nil, appSettings[app] == nil, GSettingsObject.isInstalled(Self.feedbackdAppSchema) else { return }
        guard appSettings.count < Self.maximumApps else {
            if !saidAppCap {
                saidAppCap = true
                logger.notice("feedbackd's per-app settings are followed for \(Self.maximumApps) apps; \(app) and later ones get none")
            }
            return
        }
        let path = "/org/sigxcpu/feedbackd/application/\(DesktopReadings.munged(app))/"
        guard let settings = GSettingsObject(schema: Self.feedbackdAppSchema, path: path) else { return }
        appSettings[app] = settings
        settings.onChange { [unowned self] _ in
            readApp(app)
            publish()
        }
        readApp(app)
        publish()
    }

    func readApp(_ app: String) {
        guard let text = appSettings[app]?.string("profile") else { return }
        if let profile = FeedbackProfile(rawValue: text) {
            readings.appProfiles[app] = profile
        } else {
            readings.appProfiles[app] = nil
            logger.warning("feedbackd's profile for \(app) \"\(text)\" is not one of \(FeedbackProfile.names); ignored")
        }
    }

    // MARK: - feedbackd's profile ⇄ silent mode

    /// At start, in a fresh session (neither `silent` nor `haptics` exists:
    /// the control files live in the runtime directory, feedbackd's key
    /// outlives a reboot) a profile the user set in feedbackd's panel is
    /// applied to the control files. Otherwise the files are the record
    /// (a daemon restarted within the session) and the key follows them.
    func startProfileSync() {
        guard let feedbackd, let dconf = readings.feedbackdProfile else { return }
        let files = FeedbackProfile(state: manager.state)
        let fresh = [ControlFile.silent, .haptics].allSatisfy { access(manager.controls.directory.file($0), F_OK) != 0 }
        if fresh && feedbackd.isSet("profile") {
            if dconf != files { applyToControlFiles(dconf) }
        } else if dconf != files {
            writeProfile(files)
        }
    }

    /// feedbackd's `profile` changed (its panel, `gsettings`): silent mode follows.
    func profileChangedInDconf() {
        guard let wanted = readings.feedbackdProfile, wanted != FeedbackProfile(state: manager.state) else { return }
        applyToControlFiles(wanted)
    }

    /// Writes the profile's silent and haptics control files through the
    /// manager, as the D-Bus `Profile` setter does.
    func applyToControlFiles(_ profile: FeedbackProfile) {
        logger.info("feedbackd's profile is \(profile): silent mode \(profile.settings.silent ? "on" : "off"), haptics \(profile.settings.haptics ? "on" : "off")")
        applyingProfile = true
        defer { applyingProfile = false }
        for (file, on) in [(ControlFile.silent, profile.settings.silent), (.haptics, profile.settings.haptics)] {
            // Cannot fail: "1" and "0" parse for every boolean control file.
            guard let change = try? StateChange(file, parsing: on ? "1" : "0") else { continue }
            if case .error(_, let message) = manager.handle(.stateSet(change)) {
                logger.warning("cannot apply feedbackd's profile \(profile): \(message)")
            }
        }
    }

    /// A control file changed (the CLI, a socket request, D-Bus `Profile`, a
    /// person): feedbackd's `profile` key follows silent mode and haptics.
    func controlFilesChanged(from old: SystemState, to new: SystemState) {
        guard !applyingProfile, !stopped else { return }
        let profile = FeedbackProfile(state: new)
        guard profile != FeedbackProfile(state: old), feedbackd != nil, profile != readings.feedbackdProfile else { return }
        writeProfile(profile)
        publish()
    }

    func writeProfile(_ profile: FeedbackProfile) {
        guard let feedbackd else { return }
        guard dconfWriter || !usesDconf else {
            if !saidNoWriter { logger.notice("dconf's writer is not on the session bus: feedbackd's profile does not follow silent mode until it is") }
            saidNoWriter = true
            return
        }
        saidNoWriter = false
        if feedbackd.set("profile", string: profile.rawValue) {
            readings.feedbackdProfile = profile
        } else {
            logger.warning("cannot write feedbackd's profile \(profile) (the key is not writable)")
        }
    }

    /// Whether GSettings stores through dconf (the default where dconf's
    /// backend is installed; GSETTINGS_BACKEND picks another).
    var usesDconf: Bool { backend == "DConfSettingsBackend" }
}

#if canImport(Glibc)
import Glibc
#endif
