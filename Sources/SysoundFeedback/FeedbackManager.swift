import Logging
import SysoundAudio
import SysoundConfig
import SysoundCore
import SysoundPlatform
import SysoundHaptics
import SysoundLeds
import SysoundState

/// The manager that decides (as feedbackd's): it owns the audio and haptics
/// engines, reads the user's settings, asks the core `Policy` about every
/// request and tells the engines what to do. The daemon serves it over the
/// socket; the embedded fallback (CLI, library) calls it in-process. Same
/// policy, same replies.
package final class FeedbackManager: Sendable {
    /// The audio engine once opened; see `audioEngine()`.
    private let audioSlot: Locked<AudioEngine?>
    private let openAudio: @Sendable () throws(AudioError) -> AudioEngine
    /// The engines of the other media roles in use (FeedbackManager+Roles).
    let roles: AudioRoles
    package let haptics: HapticsEngine?
    /// The notification LED and the flash (FeedbackManager+Leds); nil: none driven.
    package let leds: LedEngine?
    package let controls: ControlFiles
    package let logger: Logger
    let setup: Locked<Setup>
    let settings: SettingsSource
    private let readState: @Sendable () -> SystemState
    /// Alerts and playback requested during an interruption, played if it ends resumable.
    let deferred = Locked<[DeferredPlay]>([])
    static let maximumDeferred = 16
    /// Apps that asked, and facts of other faces, for `status` (FeedbackManager+Apps).
    let appsSeen = Locked(AppsSeen())
    let faceStatus = Locked<[String: String]>([:])
    /// The desktop's switches as its sources last reported them (FeedbackManager+Desktop).
    let desktopState = Locked(DesktopState.defaults)
    /// The XDG theme the desktop picked (GNOME's `theme-name`); nil: the configuration's.
    let desktopXDGTheme = Locked<String?>(nil)
    /// Told the first time an app asks (feedbackd's per-app settings are looked up then).
    let newAppHandler = Locked<(@Sendable (String) -> Void)?>(nil)
    /// The feedbackd theme D-Bus events resolve through (FeedbackManager+Feedbackd);
    /// nil until the D-Bus face asks for it, so the library never reads one.
    let feedbackd = Locked<FeedbackdTheme?>(nil)
    /// The feedbackd theme's name when something other than the configuration names it.
    let feedbackdThemeName = Locked<String?>(nil)

    /// What SIGHUP replaces as a whole.
    /// Configuration and theme as loaded together; replaced whole on reload.
    /// A class: a play takes it out of the lock with one retain, not a copy
    /// of every field of both.
    final class Setup: Sendable {
        let configuration: SysoundConfiguration
        let theme: Theme

        init(configuration: SysoundConfiguration, theme: Theme) {
            self.configuration = configuration
            self.theme = theme
        }
    }

    struct DeferredPlay: Sendable {
        var clip: Clip
        var request: PlayRequest
        var entry: SoundEntry
    }

    /// - Parameters:
    ///   - audio: an engine already open (the daemon's), or nil to open one
    ///     with `openAudio` when a sound must actually play: a request that
    ///     the policy silences never opens the audio device.
    ///   - haptics: nil when vibration is not wanted (e.g. `--to FILE`).
    ///   - leds: nil when no LED is driven (`[leds] enabled = false`, `--to FILE`).
    ///   - settings: where the user's settings are read; a watcher must
    ///     also report its changes to `stateChanged` (`ServiceSetup` does so).
    ///   - openRole: opens the engine of a media role other than event (its
    ///     own stream); nil plays every role on the event engine.
    ///   - roleHost: where `openRole` runs: the daemon's workers; nil opens
    ///     in the play itself (the embedded engine).
    package init(
        configuration: SysoundConfiguration, theme: Theme, audio: AudioEngine?,
        openAudio: @escaping @Sendable () throws(AudioError) -> AudioEngine = { () throws(AudioError) -> AudioEngine in
            throw AudioError.noOutputDevice(detail: "no audio engine was configured")
        },
        openRole: (@Sendable (MediaRole) throws(AudioError) -> AudioEngine)? = nil, roleHost: LoopHost? = nil,
        haptics: HapticsEngine?, leds: LedEngine? = nil, controls: ControlFiles, settings: SettingsSource,
        logger: Logger = Logger(label: "sysound")
    ) {
        self.settings = settings
        audioSlot = Locked(audio)
        self.openAudio = openAudio
        roles = AudioRoles(open: openRole, host: roleHost, logger: logger)
        self.haptics = haptics
        self.leds = leds
        self.controls = controls
        self.readState = settings.current
        self.logger = logger
        setup = Locked(Setup(configuration: configuration, theme: theme))
        audio?.setVolume(readState().volume)
        haptics?.define(scores: Self.hapticScores(of: theme))
        haptics?.preload(presets: Self.hapticPresets(usedBy: theme, configuration))
    }

    /// The theme's haptics described as scores (AHAP files), by preset name.
    static func hapticScores(of theme: Theme) -> [String: HapticScore] {
        var scores: [String: HapticScore] = [:]
        for entry in theme.entries { if let name = entry.haptic, let score = entry.hapticScore { scores[name] = score } }
        return scores
    }

    /// The presets a theme and configuration vibrate with: the sounds' paired
    /// haptics and the policy's alert haptic (silent mode).
    static func hapticPresets(usedBy theme: Theme, _ configuration: SysoundConfiguration) -> [String] {
        var names: [String] = []
        for haptic in theme.entries.compactMap(\.haptic) + [configuration.policy.defaultAlertHaptic] where !names.contains(haptic) {
            names.append(haptic)
        }
        return names
    }

    package var configuration: SysoundConfiguration { setup.withLock { $0.configuration } }
    package var theme: Theme { setup.withLock { $0.theme } }
    package var state: SystemState { readState() }

    /// The audio engine if it is open.
    package var audio: AudioEngine? { audioSlot.withLock { $0 } }

    /// The audio engine, opened now if need be (volume set from the settings).
    package func audioEngine() throws(AudioError) -> AudioEngine {
        if let engine = audio { return engine }
        let engine = try openAudio()
        if attachAudio(engine) { return engine }
        engine.shutdown()  // another thread opened one first
        return audio ?? engine
    }

    /// Takes an engine opened elsewhere (the daemon opens its device in the
    /// background when there was none at start), at the user's volume;
    /// false when one is open already (the caller shuts `engine` down).
    package func attachAudio(_ engine: AudioEngine) -> Bool {
        engine.setVolume(state.volume)
        return audioSlot.withLock { slot in
            guard slot == nil else { return false }
            slot = engine
            return true
        }
    }

    /// Decodes and uploads every sound of the theme (the daemon does this at start).
    @discardableResult
    package func preloadTheme() -> PreloadReport? { preload(theme) }

    /// Loads `theme`'s clips into the engine, replacing those it changes and
    /// dropping those it no longer has; voices playing meanwhile play on.
    @discardableResult
    private func preload(_ theme: Theme) -> PreloadReport? {
        guard let audio else { return nil }
        let report = audio.preload(
            theme.entries.map { ClipSource(name: $0.name, path: $0.file, gain: $0.gain) }, replacingTheme: true)
        for failure in report.failures {
            // The file as the theme resolved it (a link's target): which sound it is.
            let names = theme.entries.filter { $0.file == failure.file }.map { "\"\($0.name)\"" }
            logger.warning("\(names.isEmpty ? "" : "the theme's sound \(names.joined(separator: ", ")) is not played: ")\(failure)")
        }
        // Another role's engine holds only what played on it: those clips are
        // brought up to date, the others it loads on their first play.
        for engine in roles.engines {
            let loaded = Set(engine.clipNames)
            engine.preload(theme.entries.filter { loaded.contains($0.name) }.map {
                ClipSource(name: $0.name, path: $0.file, gain: $0.gain)
            }, replacingTheme: true)
        }
        return report
    }

    /// Replaces configuration and theme (SIGHUP). The engines keep running
    /// and so does every voice: the new theme's clips are loaded first (plays
    /// meanwhile are answered from the old theme), then the theme is swapped.
    package func reload(configuration: SysoundConfiguration, theme: Theme) {
        let theme = Self.theme(theme, withXDGTheme: desktopXDGTheme.withLock { $0 })
        preload(theme)
        setup.withLock { $0 = Setup(configuration: configuration, theme: theme) }
        if feedbackdTheme != nil { loadFeedbackdTheme() }
        do {
            try haptics?.setPresets(configuration.haptics.presets)
            haptics?.define(scores: Self.hapticScores(of: theme))
            try haptics?.setStrengthCap(configuration.haptics.strengthCap)
            haptics?.preload(presets: Self.hapticPresets(usedBy: theme, configuration))
        } catch {
            logger.warning("haptic presets of the new configuration refused, keeping the old ones: \(error)")
        }
    }

    // MARK: - Settings changes

    /// Applies a change of the user's settings to what is playing now:
    /// silent mode on stops ambient voices (the theatre case), the volume
    /// applies to playing voices, an interruption pauses and ends.
    package func stateChanged(from old: SystemState, to new: SystemState) {
        // Every role's engine: an alarm's stream obeys the settings as the taps' does.
        let engines = audioEngines
        guard let audio else { return }
        for engine in engines {
            if new.volume != old.volume { engine.setVolume(new.volume) }
            let silenced = Set(SoundCategory.allCases.filter { !$0.survivesSilentModeChange })
            if new.silent && !old.silent { engine.stopVoices(categories: silenced) }
            if new.locked && !old.locked {
                engine.stopVoices(categories: Set(SoundCategory.allCases.filter(\.silencedByLock)))
            }
        }
        if new.interrupted && !old.interrupted { beginInterruption() }
        // Ended by a control file rather than `interrupt end`: not resumable.
        if !new.interrupted && old.interrupted && audio.isInterrupted { endInterruption(resumable: false) }
    }

    func beginInterruption() {
        for engine in audioEngines { engine.beginInterruption() }
        haptics?.stop()
    }

    func endInterruption(resumable: Bool) {
        for engine in audioEngines { engine.endInterruption(resumable: resumable) }
        let held = deferred.withLock { d in defer { d = [] }; return d }
        guard resumable else { return }
        let state = state
        for held in held {
            let decision = Policy.decide(held.request, entry: held.entry, state: state, settings: configuration.policy, desktop: desktop)
            do {
                _ = try start(held.clip, on: try playEngine(held.request, entry: held.entry), held.request, entry: held.entry, decision: decision)
            } catch {
                logger.warning("cannot resume \(held.entry.name) after the interruption: \(error)")
            }
        }
    }
}
