@_exported import SysoundCore
import Logging
import SysoundClient
import SysoundConfig
import SysoundFeedback
import SysoundState
import SysoundCore

/// The sound and haptics service, as an app uses it.
///
/// ```swift
/// let sound = try SoundService()
/// try sound.play("tap")
/// try sound.play("alarm", category: .playback, duck: true)
/// try sound.vibrate(.success)
/// ```
///
/// Requests go to the daemon (`sysound serve`) over its socket; when no
/// daemon runs, an engine embedded in this process takes them, with the same
/// policy and the same answers. The type is `Sendable`: share one instance.
public final class SoundService: Sendable {
    /// Where requests go.
    public enum Mode: Sendable, Equatable {
        /// The daemon if one answers, else the embedded engine (but a loop,
        /// which only the daemon can stop from elsewhere, is refused).
        case automatic
        /// Only the daemon; fail with `.noDaemon` without one.
        case daemon
        /// Only the embedded engine, even if a daemon runs.
        case embedded
    }

    /// The state directory: control files and the daemon's socket.
    public let stateDirectory: StateDirectory
    let configPath: String?
    let mode: Mode
    let logger: Logger
    private let embedded = Locked<FeedbackManager?>(nil)

    /// - Parameters:
    ///   - stateDirectory: overrides `$XDG_RUNTIME_DIR/sysound`.
    ///   - configPath: a configuration file for the embedded engine.
    ///   - mode: daemon, embedded, or the daemon with embedded fallback.
    public init(stateDirectory: String? = nil, configPath: String? = nil, mode: Mode = .automatic,
                logger: Logger = Logger(label: "sysound")) {
        self.stateDirectory = StateDirectory.resolve(explicit: stateDirectory)
        self.configPath = configPath
        self.mode = mode
        self.logger = logger
    }

    // MARK: - Requests

    /// Sends one request and returns the reply, turning an `error` reply into
    /// a thrown `SoundServiceError`.
    @discardableResult
    public func perform(_ request: Request) throws(SoundServiceError) -> WireFields {
        try Self.unpack(try send(request)).0
    }

    /// An `ok` reply's fields and records; an `error` reply thrown.
    static func unpack(_ reply: Reply) throws(SoundServiceError) -> (WireFields, [WireFields]) {
        switch reply {
        case .ok(let fields, let records): return (fields, records)
        case .error(let code, let message): throw .refused(code: code, message: message)
        }
    }

    /// Sends one request and returns the reply as it came (with list records).
    public func send(_ request: Request) throws(SoundServiceError) -> Reply {
        switch try route(request) {
        case .daemon(let reply): reply
        case .embedded(let manager): manager.handle(request)
        }
    }

    /// Where a request went: the daemon (which answered), or the embedded engine (still to ask).
    enum Route {
        case daemon(Reply)
        case embedded(FeedbackManager)
    }

    /// Sends `request` to the daemon, or, when none listens (automatic
    /// mode) or in embedded mode, returns the engine that is to answer it.
    func route(_ request: Request) throws(SoundServiceError) -> Route {
        if mode != .embedded {
            do {
                return .daemon(try DaemonClient(socketPath: stateDirectory.socketPath).send(request))
            } catch {
                guard error.isNoDaemon, mode == .automatic else { throw .daemon(error) }
                // A loop that falls back here plays on in this process where
                // `sysound stop` cannot reach it, and a daemon started later
                // takes this service's own `stop` too: only `.embedded`,
                // chosen knowingly, loops in the app.
                if case .play(let play, _) = request, play.loop {
                    throw .needsDaemon(
                        "a loop needs the daemon, and none answers at \(stateDirectory.socketPath): only the daemon "
                            + "can stop it from anywhere; start it with `systemctl --user start sysound` or `sysound serve` "
                            + "(or use mode .embedded to loop in this process)")
                }
            }
        }
        return .embedded(try embeddedManager())
    }

    /// Whether a daemon answers on this state directory's socket.
    public var isUsingDaemon: Bool {
        mode != .embedded && DaemonClient(socketPath: stateDirectory.socketPath).isDaemonRunning()
    }

    /// The in-process engine, built on first use: configuration and theme
    /// are loaded then, the audio device opens only when a sound must play.
    func embeddedManager() throws(SoundServiceError) -> FeedbackManager {
        if let manager = embedded.withLock({ $0 }) { return manager }
        let manager = try Self.makeEmbedded(configPath: configPath, stateDirectory: stateDirectory, logger: logger)
        return embedded.withLock { slot in
            if let existing = slot { return existing }
            slot = manager
            return manager
        }
    }

    static func makeEmbedded(configPath: String?, stateDirectory: StateDirectory, logger: Logger) throws(SoundServiceError) -> FeedbackManager {
        let configuration: SysoundConfiguration, theme: Theme
        do {
            let problems: [Diagnostic]
            (configuration, theme, problems) = try ServiceSetup.load(configPath: configPath)
            problems.forEach { logger.debug("\($0)") }
        } catch {
            throw .configuration(error.description)
        }
        // The settings as the daemon has them: followed with inotify, so a
        // play reads no file (a fresh read of every control file per request
        // cost file I/O and two dozen allocations).
        let settings: SettingsSource
        if let watcher = try? StateWatcher(directory: stateDirectory, logger: logger) {
            watcher.start()
            settings = .watched(watcher)
        } else {
            let files = ControlFiles(directory: stateDirectory)
            settings = .read { files.loadAll().state }
        }
        do {
            return try ServiceSetup.manager(
                configuration: configuration, theme: theme, stateDirectory: stateDirectory,
                audio: .deviceOnDemand,
                haptics: ServiceSetup.haptics(configuration.haptics, logger: logger),
                settings: settings, logger: logger)
        } catch {
            throw .refused(code: .noDevice, message: error.description)
        }
    }
}

/// Why a request to the service failed.
public enum SoundServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The service refused or could not carry out the request.
    case refused(code: WireErrorCode, message: String)
    /// The daemon could not be reached or answered garbage.
    case daemon(ClientError)
    /// The embedded engine's configuration could not be loaded.
    case configuration(String)
    /// The request needs the daemon (a loop), and none runs.
    case needsDaemon(String)

    public var description: String {
        switch self {
        case .refused(_, let message): message
        case .daemon(let error): error.description
        case .configuration(let message), .needsDaemon(let message): message
        }
    }

    /// The wire code, for programs (`configuration` and daemon trouble have their own).
    public var code: WireErrorCode {
        switch self {
        case .refused(let code, _): code
        case .daemon: .internal
        case .configuration: WireErrorCode(rawValue: "config")
        case .needsDaemon: WireErrorCode(rawValue: "no-daemon")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension SoundService {
    /// Waits until the embedded engine has nothing playing or vibrating (a
    /// process about to exit takes its sounds and vibrations with it). Returns
    /// at once when requests went to the daemon, which owns its sounds.
    public func waitUntilIdle(timeoutSeconds: Double = 120) {
        guard let manager = embedded.withLock({ $0 }) else { return }
        var waited = 0.0
        while waited < timeoutSeconds,
              (manager.audio?.hasActiveVoices ?? false) || (manager.haptics?.isVibrating ?? false) {
            usleep(2_000)
            waited += 0.002
        }
        // A voice has ended when the mixer has consumed it; the sound server
        // still holds up to the output latency of it, and closing the stream
        // now would drop that tail (a short tap, entirely).
        if manager.audio != nil {
            usleep(useconds_t((manager.configuration.audio.latencyMs + 50) * 1000))
        }
    }
}
