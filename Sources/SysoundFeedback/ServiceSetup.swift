import Logging
import SysoundAudio
import SysoundConfig
import SysoundCore
import SysoundPlatform
import SysoundHaptics
import SysoundLeds
import SysoundState

/// Builds a `FeedbackManager` the same way for the daemon and for the
/// embedded fallback, so both follow one configuration and one policy.
package enum ServiceSetup {
    /// How the audio engine is provided.
    package enum AudioMode: Sendable {
        /// Open the default output device now (tests and the bench that build a manager).
        case deviceNow
        /// Open the default output device when a sound must really play (embedded).
        case deviceOnDemand
        /// Open it with `openBeforeServing`, once the rest of the daemon's
        /// start is done and before its first request; when none opens then,
        /// again and again on the host's workers until one does. Requests
        /// meanwhile are told there is no output yet and never wait for a server.
        case deviceBeforeServing
        /// Render offline through a loopback device (`--to FILE`).
        case loopback
    }

    /// Loads the configuration (search order: `path`, `$XDG_CONFIG_HOME`,
    /// `/etc/sysound`, the shipped default) and the theme it names. Problems
    /// with single sounds are returned, not thrown: the other sounds still play.
    /// `checkingFiles`: whether each sound's file is opened to check it (`Theme.read`).
    package static func load(configPath: String?, checkingFiles: Bool = true) throws(ConfigurationError) -> (SysoundConfiguration, Theme, [Diagnostic]) {
        let configuration = try SysoundConfiguration.load(path: configPath)
        let (theme, problems) = Theme.read(configuration: configuration, checkingFiles: checkingFiles)
        return (configuration, theme, problems)
    }

    /// What a daemon serves with: the configuration as `load` gives it, or —
    /// when that file is missing or broken — the built-in defaults and the
    /// reason, which the daemon logs and `sysound status` shows until a
    /// reload brings a good file. A service that exits on a typo would be
    /// restarted by systemd until its start limit, taking the socket down;
    /// serving the defaults keeps every sound working meanwhile. Only a
    /// missing data directory (no theme at all) still throws.
    /// `checkingFiles` as for `load`.
    package static func loadForServing(
        configPath: String?, search: ConfigurationSearch = ConfigurationSearch(), checkingFiles: Bool = true
    ) throws(ConfigurationError) -> (SysoundConfiguration, Theme, [Diagnostic], problem: ConfigurationError?) {
        do {
            let configuration = try SysoundConfiguration.load(path: configPath, search: search)
            let (theme, problems) = Theme.read(configuration: configuration, environment: search.environment, checkingFiles: checkingFiles)
            return (configuration, theme, problems, nil)
        } catch {
            if case .noDataDirectory = error { throw error }
            let configuration = SysoundConfiguration(dataDirectory: try search.dataDirectory())
            let (theme, problems) = Theme.read(configuration: configuration, environment: search.environment, checkingFiles: checkingFiles)
            return (configuration, theme, problems, error)
        }
    }

    /// Starts a haptics engine on `/dev/input` (or the configured pins).
    /// Without any device it still runs and finds devices plugged in later;
    /// if even that cannot be set up, vibration is reported unavailable.
    /// The daemon passes its loop and workers; embedded users (nil) share
    /// the process's embedded loop with the audio engine (`LoopHost.embedded`).
    package static func haptics(
        _ c: HapticSettings, logger: Logger, directory: String? = "/dev/input", host: LoopHost? = nil
    ) -> HapticsEngine? {
        do {
            let choice: DeviceChoice, profile: ProfileChoice?
            do {
                choice = try DeviceChoice(entries: c.devices + c.deviceNames)
            } catch {
                // The configuration check reported it; vibrate on the built-in devices meanwhile.
                logger.warning("\(error); using the built-in vibrators")
                choice = .builtIn
            }
            do {
                profile = try MachineIdentity.profile(configured: c.profile)
            } catch {
                logger.warning("\(error)")
                profile = nil
            }
            if let profile { logger.info("haptic profile \(profile)") }
            let engine = try HapticsEngine(
                presets: c.presets, strengthCap: c.strengthCap, deviceDirectory: directory, choice: choice,
                profile: profile, host: try host ?? LoopHost.embedded(), logger: logger)
            try engine.start()
            return engine
        } catch {
            logger.info("haptics unavailable: \(error)")
            return nil
        }
    }

    /// Starts the LED engine on sysfs's LED class, or nil when `[leds]
    /// enabled` is false. Without an LED it still runs and finds LEDs udev
    /// records later. The daemon passes its loop; embedded users share the
    /// process's embedded loop.
    package static func leds(_ settings: LedSettings, logger: Logger, host: LoopHost? = nil) -> LedEngine? {
        guard settings.enabled else { return nil }
        do {
            let choice = LedChoice(devices: settings.devices, exclude: settings.exclude)
            let engine = LedEngine(discovery: LedDiscovery(choice: choice), host: try host ?? LoopHost.embedded(), logger: logger)
            engine.start()
            return engine
        } catch {
            logger.info("LEDs unavailable: \(error)")
            return nil
        }
    }

    /// Builds the manager, reading the user's settings from `settings`; a
    /// watcher also reports their changes to the manager from now on. A
    /// device engine runs on `host` (the daemon's loop and workers), or on
    /// the process's embedded audio loop when nil. `realtime` makes the
    /// device's audio threads real-time (the daemon's; nil leaves them be).
    /// `audioLogger` is where the audio engines log (nil: `sysound.audio`
    /// through the process's logging system, as the daemon has it).
    package static func manager(
        configuration: SysoundConfiguration, theme: Theme, stateDirectory: StateDirectory,
        audio mode: AudioMode, haptics: HapticsEngine?, leds: LedEngine? = nil, settings: SettingsSource, host: LoopHost? = nil,
        realtime: RealtimeThreads? = nil, logger: Logger, audioLogger: Logger? = nil
    ) throws(AudioError) -> FeedbackManager {
        let engineSettings = configuration.audio
        let audioLogger = audioLogger ?? Logger(label: "sysound.audio")
        let onDemand = if case .deviceOnDemand = mode { true } else { false }
        let open = deviceOpener(engineSettings, onDemand: onDemand, host: host, realtime: realtime, audioLogger: audioLogger)
        // Another media role's engine: always sysound's own stream (the event
        // engine plays on one, or no role gets its own: AudioRoles.separates).
        let roleSettings = { var s = engineSettings; s.backend = .pulse; return s }()
        let openRole: @Sendable (MediaRole) throws(AudioError) -> AudioEngine = { (role) throws(AudioError) -> AudioEngine in
            try AudioEngine(settings: roleSettings, output: .device, host: host, realtime: realtime, role: role, logger: audioLogger)
        }
        let rendersOffline = if case .loopback = mode { true } else { false }
        let engine: AudioEngine?
        var openInRequest = open
        switch mode {
        case .deviceNow: engine = try open()
        case .deviceOnDemand: engine = nil
        case .deviceBeforeServing:
            engine = nil
            openInRequest = { () throws(AudioError) -> AudioEngine in
                throw .noOutputDevice(detail: "no audio output is open yet; the daemon keeps trying and plays sounds once one opens")
            }
        case .loopback: engine = try AudioEngine(settings: engineSettings, output: .loopback, logger: audioLogger)
        }
        let manager = FeedbackManager(
            configuration: configuration, theme: theme, audio: engine, openAudio: openInRequest,
            openRole: rendersOffline ? nil : openRole, roleHost: host, haptics: haptics, leds: leds,
            controls: ControlFiles(directory: stateDirectory), settings: settings, logger: logger)
        if case .watched(let watcher) = settings {
            // Weak: the manager reads the watcher, so a strong capture would be a cycle.
            watcher.onChange { [weak manager] old, new in manager?.stateChanged(from: old, to: new) }
        }
        return manager
    }

    /// Opens the audio device of `manager` (made with `.deviceBeforeServing`
    /// on `host`) now, before the daemon serves its first request: its own
    /// stream's mixer and stream were started ahead (`AudioProcess.openAhead`)
    /// and have had the rest of the start to get ready, which no longer waits
    /// for them. When none opens, it is tried again and again on the host's
    /// workers (`BackgroundAudioOpen`), and the daemon serves meanwhile.
    package static func openBeforeServing(
        _ manager: FeedbackManager, host: LoopHost, realtime: RealtimeThreads?, logger: Logger, audioLogger: Logger? = nil
    ) {
        let open = deviceOpener(
            manager.configuration.audio, onDemand: false, host: host, realtime: realtime,
            audioLogger: audioLogger ?? Logger(label: "sysound.audio"))
        do {
            let engine = try open()
            if !manager.attachAudio(engine) { engine.shutdown() }
        } catch {
            logger.error("no audio output yet: \(error); opening one in the background, sounds play once it opens")
            BackgroundAudioOpen(manager: manager, host: host, logger: logger, open: open).start()
        }
    }

    /// What opens the device engine (`settings`' output) for a manager: the
    /// sound server asked first, its answer handed to the open.
    private static func deviceOpener(
        _ engineSettings: AudioSettings, onDemand: Bool, host: LoopHost?, realtime: RealtimeThreads?, audioLogger: Logger
    ) -> @Sendable () throws(AudioError) -> AudioEngine {
        { () throws(AudioError) -> AudioEngine in
            let server = AudioProcess.takeAnswerAhead() ?? SoundServerProbe.ask()
            let tried = OutputAttempt(server: server, paths: SoundServerProbe.socketPaths())
            switch server {
            // OpenAL Soft tries the sound server once per process: a daemon
            // waits until one answers. A one-shot open (the embedded engine)
            // has no later: it goes on to OpenAL Soft's other outputs (ALSA).
            // A server that listens and does not answer would hang OpenAL
            // Soft's own try for 30 s: never past it.
            case .absent where !onDemand, .silent:
                throw .noOutputDevice(detail: tried.serverOnly)
            case .absent, .silent, .answers, .unknown: break
            }
            do throws(AudioError) {
                // The open takes this answer (`output = "auto"`) instead of asking again.
                return try AudioEngine(settings: engineSettings, output: .device, host: host, realtime: realtime, server: server,
                                       logger: audioLogger)
            } catch {
                guard case .noOutputDevice = error else { throw error }
                throw .noOutputDevice(detail: tried.everything)
            }
        }
    }
}
