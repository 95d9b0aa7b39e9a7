import Logging
import SysoundAudio
import SysoundCore
import SysoundPlatform

/// The audio engines of the media roles other than `event`: one engine, and
/// so one sound-server stream whose `media.role` is the role, per role in
/// use (docs/architecture.md, "Media roles"). The event engine stays the
/// manager's own (`FeedbackManager.audio`): opened at start, the theme
/// preloaded, latency-critical. Another role's engine is opened on its first
/// play and loads only the clips played with it.
///
/// Opening connects to the sound server, which may wait: with a `host` (the
/// daemon) the open runs on its workers and the request goes on once it is
/// done (`prepare`), never on the loop; without one (the embedded engine,
/// whose caller may wait) the play opens it in place.
final class AudioRoles: Sendable {
    typealias Open = @Sendable (MediaRole) throws(AudioError) -> AudioEngine

    private struct State {
        var engines: [MediaRole: AudioEngine] = [:]
        /// Opens in flight on a worker, and who goes on once each is done.
        var waiting: [MediaRole: [@Sendable () -> Void]] = [:]
        var closed = false
    }

    private let state = Locked(State())
    /// Nil: no engine per role here (loopback, `--to FILE`): every role plays on the event engine.
    private let open: Open?
    private let host: LoopHost?
    private let logger: Logger

    init(open: Open?, host: LoopHost?, logger: Logger) {
        self.open = open
        self.host = host
        self.logger = logger
    }

    /// The engines open now, event's excluded.
    var engines: [AudioEngine] { state.withLock { $0.engines.sorted { $0.key.rawValue < $1.key.rawValue }.map(\.value) } }

    /// The roles whose engines are open now, event's excluded.
    var openRoles: [MediaRole] { state.withLock { $0.engines.keys.sorted { $0.rawValue < $1.rawValue } } }

    func engine(_ role: MediaRole) -> AudioEngine? { state.withLock { $0.engines[role] } }

    /// Whether `role` gets an engine of its own, given the event engine: only
    /// where the event engine plays on sysound's own stream (OpenAL Soft's
    /// device and loopback rendering have one output, roles or not).
    func separates(_ role: MediaRole, from event: AudioEngine?) -> Bool {
        guard role != .event, open != nil, let event else { return false }
        return event.playsOnOwnStream
    }

    /// Whether a play of `role` must wait for its engine to open on a worker.
    func mustPrepare(_ role: MediaRole, event: AudioEngine?) -> Bool {
        host != nil && separates(role, from: event) && engine(role) == nil
    }

    /// Opens `role`'s engine on a worker (once, however many ask), then calls
    /// `then` on the loop, opened or not: a play that finds it still closed
    /// plays on the event engine (`engineInPlace`).
    func prepare(_ role: MediaRole, volume: @escaping @Sendable () -> Double, then: @escaping @Sendable () -> Void) {
        guard let host, let open else { return then() }
        let first = state.withLock { s -> Bool in
            if s.engines[role] != nil { return false }
            let first = s.waiting[role] == nil
            s.waiting[role, default: []].append(then)
            return first
        }
        guard first else {
            if engine(role) != nil { then() }
            return
        }
        host.workers.submit({ () -> Result<AudioEngine, AudioError> in
            do throws(AudioError) { return .success(try open(role)) } catch { return .failure(error) }
        }, then: { [self] result in
            if case .success(let engine) = result { engine.setVolume(volume()) }
            let (waiting, unused) = state.withLock { s -> ([@Sendable () -> Void], AudioEngine?) in
                let waiting = s.waiting.removeValue(forKey: role) ?? []
                guard case .success(let engine) = result else { return (waiting, nil) }
                if s.closed { return (waiting, engine) }
                s.engines[role] = engine
                return (waiting, nil)
            }
            switch result {
            case .success: logger.info("\(role) stream opened (media.role \(role.streamName))")
            case .failure(let error): logger.warning("cannot open the \(role) stream (\(error)); its sounds play on the event stream")
            }
            if let unused { host.workers.submit { unused.shutdown() } }
            for go in waiting { go() }
        })
    }

    /// The engine for `role` now: the open one, else (without a host) opened
    /// here; nil when the role has none (it plays on the event engine).
    func engineInPlace(_ role: MediaRole, volume: Double) throws(AudioError) -> AudioEngine? {
        if let engine = engine(role) { return engine }
        guard host == nil, let open else {
            // The daemon prepares before it plays: here only if that open failed.
            return nil
        }
        let engine = try open(role)
        engine.setVolume(volume)
        let kept = state.withLock { s -> AudioEngine? in
            if s.closed { return nil }
            if let other = s.engines[role] { return other }
            s.engines[role] = engine
            return engine
        }
        if kept !== engine { engine.shutdown() }
        guard let kept else { throw .deviceUnavailable }
        return kept
    }

    /// Closes every role's engine (the daemon's shutdown).
    func shutdown() {
        let engines = state.withLock { s -> [AudioEngine] in
            s.closed = true
            defer { s.engines = [:] }
            return Array(s.engines.values)
        }
        for engine in engines { engine.shutdown() }
    }
}
