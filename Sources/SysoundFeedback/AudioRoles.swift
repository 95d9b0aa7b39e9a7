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
///
/// A role's engine costs an OpenAL Soft context, a stream, its thread and
/// a sound-server client: after `roleReleaseSeconds` (its settings) with
/// nothing played on it and no voice left, it is closed (`releaseIfQuiet`), and the
/// role's next sound opens it again. The timer is a one-shot on the loop
/// (the daemon's, or the embedded engine's own), armed again while the
/// role is in use; the close runs on a worker.
final class AudioRoles: Sendable {
    typealias Open = @Sendable (MediaRole) throws(AudioError) -> AudioEngine

    private struct State {
        var engines: [MediaRole: AudioEngine] = [:]
        /// When each open role's engine was last handed out for a play (CLOCK_MONOTONIC µs).
        var lastUse: [MediaRole: UInt64] = [:]
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
                s.lastUse[role] = EventLoop.monotonicNow()
                return (waiting, nil)
            }
            if case .success(let engine) = result, unused == nil { armRelease(role, engine) }
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
        if let engine = use(role) { return engine }
        guard host == nil, let open else {
            // The daemon prepares before it plays: here only if that open failed.
            return nil
        }
        let engine = try open(role)
        engine.setVolume(volume)
        let kept = state.withLock { s -> AudioEngine? in
            if s.closed { return nil }
            s.lastUse[role] = EventLoop.monotonicNow()
            if let other = s.engines[role] { return other }
            s.engines[role] = engine
            return engine
        }
        if kept !== engine { engine.shutdown() } else { armRelease(role, engine) }
        guard let kept else { throw .deviceUnavailable }
        return kept
    }

    /// `role`'s open engine, counted as used now (a play is about to start on it).
    private func use(_ role: MediaRole) -> AudioEngine? {
        state.withLock { s in
            guard let engine = s.engines[role] else { return nil }
            s.lastUse[role] = EventLoop.monotonicNow()
            return engine
        }
    }

    // MARK: Release after a quiet time

    /// Where the release timers run and the closes go: the daemon's host,
    /// else the embedded engine's (the one its engines already run on).
    private var releaseHost: LoopHost? {
        if let host { return host }
        do { return try LoopHost.embedded() } catch {
            logger.error("no loop to release media-role streams on (\(error)): they stay open")
            return nil
        }
    }

    /// Arms the release of `role`'s newly kept `engine` at its last use plus its quiet time.
    private func armRelease(_ role: MediaRole, _ engine: AudioEngine) {
        let quiet = engine.settings.roleReleaseSeconds
        guard quiet > 0, let host = releaseHost else { return }
        let quietMicroseconds = UInt64(quiet * 1_000_000)
        host.loop.post { [weak self] in self?.scheduleRelease(role, engine, after: quietMicroseconds, quiet: quietMicroseconds, on: host) }
    }

    /// Loop thread: checks `role` again `delay` µs from now. Slack of a
    /// quarter of the quiet time, at most a second: nobody waits for a close,
    /// so the loop may fold it into a wake-up it has anyway.
    private func scheduleRelease(_ role: MediaRole, _ engine: AudioEngine, after delay: UInt64, quiet: UInt64, on host: LoopHost) {
        do {
            try host.loop.addOneShot(after: delay, accuracy: .coarse(every: quiet)) { [weak self] in
                self?.releaseIfQuiet(role, engine, quiet: quiet, on: host)
            }
        } catch {
            logger.error("cannot arm the release of the \(role) stream (\(error)): it stays open")
        }
    }

    /// Loop thread: closes `role`'s engine if it is still `engine`, nothing
    /// was played on it for `quiet` µs and no voice is left on it (a loop,
    /// a paused voice); else checks again when the quiet time would be up.
    private func releaseIfQuiet(_ role: MediaRole, _ engine: AudioEngine, quiet: UInt64, on host: LoopHost) {
        // Asked before the state's lock: the engine's lock is never taken under it.
        let busy = engine.hasActiveVoices
        let now = EventLoop.monotonicNow()
        enum Next { case gone, later(UInt64), release }
        let next = state.withLock { s -> Next in
            guard !s.closed, s.engines[role] === engine else { return .gone }
            // A voice still on it (a loop, a paused voice) counts as a use
            // now; looked at again a quarter of the quiet time on, so the
            // close comes between one and one and a quarter quiet times after the last voice.
            if busy {
                s.lastUse[role] = now
                return .later(quiet / 4)
            }
            let due = (s.lastUse[role] ?? 0) + quiet
            if now < due { return .later(due - now) }
            s.engines[role] = nil
            s.lastUse[role] = nil
            return .release
        }
        switch next {
        case .gone: return
        case .later(let delay): scheduleRelease(role, engine, after: delay, quiet: quiet, on: host)
        case .release:
            logger.info("\(role) stream closed after \(quiet / 1_000_000) s without a sound; its next sound opens it again")
            // The worker holds the engine's last reference (this timer's goes
            // when it returns): freed there, then the heap is trimmed, or
            // glibc keeps the context's and the stream's pages for a later
            // allocation and the daemon's memory stays where the role left it.
            let closing = Locked<AudioEngine?>(engine)
            host.workers.submit {
                closing.withLock { slot -> AudioEngine? in defer { slot = nil }; return slot }?.shutdown()
                AudioProcess.returnFreedMemory()
            }
        }
    }

    /// Closes every role's engine (the daemon's shutdown).
    func shutdown() {
        let engines = state.withLock { s -> [AudioEngine] in
            s.closed = true
            defer { s.engines = [:]; s.lastUse = [:] }
            return Array(s.engines.values)
        }
        for engine in engines { engine.shutdown() }
    }
}
