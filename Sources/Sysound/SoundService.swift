import Dispatch
import Logging
import SysoundClient
import SysoundCore
import SysoundState

/// The sound and haptics service, as an app uses it.
///
/// ```swift
/// let sound = SoundService()
/// try await sound.play("tap")
/// try await sound.vibrate(.success)
/// ```
///
/// Requests go to the daemon (`sysound serve`) over one connection the
/// service keeps (and makes again after the daemon restarted); when no
/// daemon runs, an engine embedded in this process takes them, with the same
/// policy and the same answers. Share one instance: it is safe to use from
/// any task or thread.
///
/// Every call has an `async` form, which does its waiting off Swift's
/// cooperative threads, and a synchronous one for scripts and tools, on the
/// same path.
public final class SoundService: Sendable {
    /// Where requests go.
    public enum Mode: Sendable, Equatable {
        /// The daemon if one answers, else the embedded engine (but a looping
        /// sound, which only the daemon can stop from elsewhere, is refused).
        case automatic
        /// Only the daemon; fail with ``SoundServiceError/Kind/noDaemon`` without one.
        case daemon
        /// Only the embedded engine, even if a daemon runs.
        case embedded
    }

    /// The state directory: the user's settings and the daemon's socket.
    public var stateDirectoryPath: String { stateDirectory.path }
    /// Where requests go.
    public let mode: Mode

    package let stateDirectory: StateDirectory
    let configPath: String?
    let oneShot: Bool
    let logger: Logger
    let link: DaemonLink
    let embedded = Locked<InProcessEngine?>(nil)
    let warmth = Locked<Warmth>(Warmth())

    /// A service for this user's session.
    ///
    /// - Parameters:
    ///   - stateDirectory: overrides `$XDG_RUNTIME_DIR/sysound` (tests, a second session).
    ///   - configPath: a configuration file for the embedded engine.
    ///   - mode: the daemon with the embedded fallback (the default), only the
    ///     daemon, or only the embedded engine.
    ///   - logger: where the embedded engine logs. Without one it logs nothing
    ///     (the app's standard error is the app's), unless the environment
    ///     sets SYSOUND_LOG_LEVEL (trace…critical): then to standard error.
    public convenience init(
        stateDirectory: String? = nil, configPath: String? = nil, mode: Mode = .automatic,
        logger: Logger? = nil
    ) {
        self.init(stateDirectory: stateDirectory, configPath: configPath, mode: mode, logger: logger, oneShot: false)
    }

    /// `oneShot`: the process plays one request and exits (`sysound-play`,
    /// `sysound-engine request`): the embedded engine reads the user's settings
    /// when it plays instead of following them with a watcher (a thread and
    /// an inotify watch for a process that ends with its sound).
    package init(stateDirectory: String?, configPath: String?, mode: Mode, logger: Logger?, oneShot: Bool) {
        self.stateDirectory = StateDirectory.resolve(explicit: stateDirectory)
        self.configPath = configPath
        self.mode = mode
        self.logger = logger ?? LibraryLog.defaultLogger()
        self.oneShot = oneShot
        link = DaemonLink(socketPath: self.stateDirectory.socketPath)
    }

    /// Whether a daemon answers now (always false in mode ``Mode/embedded``).
    public var isUsingDaemon: Bool {
        mode != .embedded && ((try? link.send(.ping))?.isOK ?? false)
    }

    // MARK: - The one path every request takes

    /// Sends one request and returns the reply as it came: for the tools of
    /// this package that speak the protocol (`sysound-engine request`).
    package func send(_ request: Request) throws(SoundServiceError) -> Reply {
        switch try route(request) {
        case .daemon(let reply): reply
        case .embedded(let engine): engine.handle(request)
        }
    }

    /// Sends one request; an `error` reply is thrown.
    @discardableResult
    package func perform(_ request: Request) throws(SoundServiceError) -> WireFields {
        try Self.unpack(try send(request))
    }

    static func unpack(_ reply: Reply) throws(SoundServiceError) -> WireFields {
        switch reply {
        case .ok(let fields, _): return fields
        case .error(let code, let message): throw SoundServiceError(code: code, message: message)
        }
    }

    /// Where a request went: the daemon (which answered), or the embedded engine (still to ask).
    enum Route {
        case daemon(Reply)
        case embedded(InProcessEngine)
    }

    /// Sends `request` to the daemon, or, when none listens (automatic
    /// mode) or in embedded mode, returns the engine that is to answer it.
    func route(_ request: Request) throws(SoundServiceError) -> Route {
        if mode != .embedded {
            do {
                return .daemon(try link.send(request))
            } catch {
                guard error.isNoDaemon, mode == .automatic else { throw SoundServiceError(error) }
                // A loop that falls back here plays on in this process where
                // `sysound stop` cannot reach it, and a daemon started later
                // takes this service's own `stop` too: only `.embedded`,
                // chosen knowingly, loops in the app.
                if case .play(let play, _) = request, play.loop {
                    throw SoundServiceError(
                        .needsDaemon,
                        "a loop needs the daemon, and none answers at \(stateDirectory.socketPath): only the daemon "
                            + "can stop it from anywhere; start it with `systemctl --user start sysound` or `sysound serve` "
                            + "(or use mode .embedded to loop in this process)")
                }
            }
        }
        return .embedded(try embeddedEngine())
    }

    /// Runs a blocking exchange away from Swift's cooperative threads (a
    /// daemon that socket activation is starting may take seconds to answer).
    static func offThePool<T: Sendable>(
        _ body: @escaping @Sendable () throws(SoundServiceError) -> T
    ) async throws(SoundServiceError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, SoundServiceError>, Never>) in
            requests.async {
                do throws(SoundServiceError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    private static let requests = DispatchQueue(label: "sysound.requests", attributes: .concurrent)

    // MARK: - The embedded engine

    /// The in-process engine, built on first use: configuration and theme
    /// are loaded then, the audio device opens only when a sound must play.
    func embeddedEngine() throws(SoundServiceError) -> InProcessEngine {
        if let engine = embedded.withLock({ $0 }) { return engine }
        let engine = try InProcessEngine.make(configPath: configPath, stateDirectory: stateDirectory, logger: logger, oneShot: oneShot)
        // The first made stays (two first requests may race here).
        let kept = embedded.withLock { slot -> InProcessEngine? in
            if slot == nil { slot = engine }
            return slot
        }
        return kept ?? engine
    }
}

extension SoundService {
    /// Waits until the embedded engine has nothing playing or vibrating (a
    /// process about to exit takes its sounds and vibrations with it: its
    /// exit closes the embedded engine's streams and devices). Returns at
    /// once when requests went to the daemon, which owns its sounds.
    public func waitUntilIdle(timeoutSeconds: Double = 120) {
        embedded.withLock { $0 }?.waitUntilIdle(timeoutSeconds: timeoutSeconds)
    }
}
