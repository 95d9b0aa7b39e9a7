#if EmbeddedEngine
#if canImport(Glibc)
import Glibc
#endif
import Logging
import SysoundAudio
import SysoundConfig
import SysoundCore
import SysoundFeedback
import SysoundState

/// The engine embedded in the app's process, for when no daemon answers:
/// the daemon's manager, policy and answers, built from the same
/// configuration and theme.
///
/// The package trait `EmbeddedEngine` (on by default) brings it; an app
/// built without it links only the client (no OpenAL, libpulse, libsndfile,
/// libevdev or TOML parser) and needs a daemon.
final class InProcessEngine: Sendable {
    let manager: FeedbackManager

    private init(_ manager: FeedbackManager) {
        self.manager = manager
        Self.closeAtExit(manager)
    }

    /// Closes `manager`'s audio when the process exits, if it is still
    /// alive, as the daemon's stop closes its engines: an app's exit left
    /// them to OpenAL Soft's library destructor ("2 devices not closed" at
    /// ALSOFT_LOGLEVEL=1), with an own stream's render still mixing into
    /// one (`AudioProcess.closeAtExit`).
    private static func closeAtExit(_ manager: FeedbackManager) {
        _ = closesAtExit
        alive.withLock { alive in
            alive.removeAll { $0.manager == nil }
            alive.append(WeakManager(manager: manager))
        }
    }

    private static let closesAtExit: Void = AudioProcess.closeAtExit {
        for entry in InProcessEngine.alive.withLock({ $0 }) { entry.manager?.shutdownAudio() }
    }

    private struct WeakManager: Sendable {
        weak var manager: FeedbackManager?
    }

    /// The managers of this process's embedded engines, while they live.
    private static let alive = Locked<[WeakManager]>([])

    /// Loads the configuration and the theme; the audio device opens only
    /// when a sound must play. A `oneShot` process (one request, then exit)
    /// reads the user's settings when it plays instead of following them
    /// with a watcher (a thread and an inotify watch for a process that ends
    /// with its sound).
    static func make(
        configPath: String?, stateDirectory: StateDirectory, logger: Logger, oneShot: Bool
    ) throws(SoundServiceError) -> InProcessEngine {
        let configuration: SysoundConfiguration
        do { configuration = try SysoundConfiguration.load(path: configPath) } catch {
            throw SoundServiceError(.configuration, error.description)
        }
        // Before the threads below (haptics, LEDs, the audio loop): the
        // environment may be written only now. Before the theme, whose
        // reading then overlaps the output's opening ahead.
        if oneShot { AudioProcess.prepareOneShot(configuration.audio) }
        // A one-shot play decodes its one sound, which says what is wrong with its file.
        let (theme, problems) = Theme.read(configuration: configuration, checkingFiles: !oneShot)
        problems.forEach { logger.debug("\($0)") }
        // The settings as the daemon has them: followed with inotify, so a
        // play reads no file. Without a watch (inotify's limit reached) they
        // are read at each play, which is slower but as right.
        let settings: SettingsSource
        if !oneShot, let watcher = try? StateWatcher(directory: stateDirectory, logger: logger) {
            watcher.start()
            settings = .watched(watcher)
        } else {
            let files = ControlFiles(directory: stateDirectory)
            settings = .read { files.loadAll().state }
        }
        do {
            return InProcessEngine(try ServiceSetup.manager(
                configuration: configuration, theme: theme, stateDirectory: stateDirectory,
                audio: .deviceOnDemand,
                haptics: ServiceSetup.haptics(configuration.haptics, logger: logger),
                leds: ServiceSetup.leds(configuration.leds, logger: logger),
                settings: settings, logger: logger, audioLogger: LibraryLog.audio(logger)))
        } catch {
            throw SoundServiceError(.noDevice, error.description)
        }
    }

    /// Answers `request` as the daemon would.
    func handle(_ request: Request) -> Reply { manager.handle(request) }

    /// Starts a sound: its `Playback`, made from the manager's typed result.
    func play(_ request: PlayRequest) throws(SoundServiceError) -> Playback {
        do throws(FeedbackError) {
            return Playback(result: try manager.play(request), engine: .embedded(self))
        } catch {
            throw SoundServiceError(code: error.code, message: error.message)
        }
    }

    /// Calls `heard` once the sound `id` names has been heard to its end
    /// (the engine's end event, the one the daemon answers `wait` with);
    /// false, and no call, when `id` names no voice.
    func whenHeard(_ id: String, _ heard: @escaping @Sendable () -> Void) -> Bool {
        guard let voice = VoiceID(id) else { return false }
        manager.whenHeard(voice, heard)
        return true
    }

    /// Opens the audio device (`prepare()`); false when it cannot be opened.
    func openAudio() -> Bool {
        // A hint: what fails here fails again, and is reported, at the play.
        (try? manager.audioEngine()) != nil
    }

    /// Decodes and uploads every sound of the theme.
    func preloadTheme() { manager.preloadTheme() }

    /// Waits until nothing plays or vibrates, and what was played has been heard.
    func waitUntilIdle(timeoutSeconds: Double) {
        var waited = 0.0
        while waited < timeoutSeconds,
              manager.audioEngines.contains(where: \.hasActiveVoices) || (manager.haptics?.isVibrating ?? false) {
            usleep(2_000)
            waited += 0.002
        }
        // A voice has ended when the mixer has consumed it; the sound server
        // still holds what was written ahead of the sink, and closing the
        // stream now would drop that tail (a short tap, entirely). The own
        // stream is drained: the server says when it has played it all, and
        // starts a last block it would hold after an underrun (FastPathTests
        // saw tails cut to 0.73–0.77 of their share when blocks came late,
        // before). An output that cannot tell (OpenAL Soft's device) is
        // waited for by its latency: the longer of the configured and the
        // engine's own count of what is unheard, and 50 ms for late blocks.
        let undrained = manager.audioEngines.filter { !$0.drainOutput(timeoutSeconds: Self.longestDrainSeconds) }
        if !undrained.isEmpty {
            let configured = UInt64(manager.configuration.audio.latencyMs) * 1_000_000
            let unheard = undrained.map(\.untilHeardNanoseconds).max() ?? 0
            usleep(useconds_t((max(configured, unheard) + 50_000_000) / 1000))
        }
    }

    /// The longest a drain is waited for: a server that takes longer has
    /// stalled (a stream's whole buffer is milliseconds).
    static let longestDrainSeconds = 2.0
}
#else
import Logging
import SysoundCore
import SysoundState

/// Built without the package trait `EmbeddedEngine`: no engine can be made
/// in this process (the type has no value), and a request that no daemon
/// answers fails with a message that says how to get one.
enum InProcessEngine: Sendable {
    static func make(
        configPath: String?, stateDirectory: StateDirectory, logger: Logger, oneShot: Bool
    ) throws(SoundServiceError) -> InProcessEngine {
        throw SoundServiceError(
            .noDaemon,
            "no daemon answers at \(stateDirectory.socketPath), and this app was built without sysound's embedded "
                + "engine (the package trait EmbeddedEngine): start the daemon with `systemctl --user start sysound` "
                + "or `sysound serve`, or build the app with the trait")
    }

    func handle(_ request: Request) -> Reply { switch self {} }
    func play(_ request: PlayRequest) throws(SoundServiceError) -> Playback { switch self {} }
    func whenHeard(_ id: String, _ heard: @escaping @Sendable () -> Void) -> Bool { switch self {} }
    func openAudio() -> Bool { switch self {} }
    func preloadTheme() { switch self {} }
    func waitUntilIdle(timeoutSeconds: Double) { switch self {} }
}
#endif
