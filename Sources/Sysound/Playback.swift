import Dispatch
import Synchronization
import SysoundCore
#if EmbeddedEngine
import SysoundFeedback
#endif

/// One sound the service was asked to play: what it decided, and the sound
/// itself while it plays.
///
/// ```swift
/// let chime = try await sound.play("complete")
/// if let reason = chime.reason { print("silenced: \(reason)") }
/// await chime.finished        // the sound has been heard to its end
/// ```
///
/// A sound that the user's settings silenced is a `Playback` too: its
/// ``reason`` says why, ``id`` is nil, and ``finished`` is already done.
/// So is an alert deferred by an interruption (``outcome`` `.deferred`): it
/// plays when the interruption ends, on a voice this `Playback` does not follow.
public final class Playback: Sendable {
    /// Names one sound while it plays, for as long as the service runs.
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        let text: String
        /// The id as the service writes it (`slot.serial`), for logs.
        public var description: String { text }
    }

    /// The playing sound's id; nil when no sound plays (silenced, or only vibrated).
    public let id: ID?
    /// What the service did: `play`, `playAndVibrate`, `skip`, `vibrateInstead`, `deferred`.
    public let outcome: FeedbackOutcome
    /// Why the sound was not played, when the user's settings silenced it.
    public let reason: SkipReason?
    /// The category the sound was played under (its own, or the one asked for).
    public let category: SoundCategory?
    /// The preset vibrated with the sound (or instead of it), if any.
    public let haptic: HapticPreset?
    /// Why the vibration that was due did not start, if it did not.
    public let hapticSkipped: HapticSkipReason?
    /// The sound's length, once, in seconds; nil when not known or nothing plays.
    public let duration: Double?
    private let engine: Engine
    /// The watch for the sound's end, made by the first wait (most plays
    /// are never awaited): until then a play costs nothing for it.
    private let end = AtomicLazyReference<EndSignal>()

    /// Who plays the sound, to stop it and to know its end.
    enum Engine: Sendable {
        case daemon(DaemonLink)
        case embedded(InProcessEngine)
        case none
    }

    /// From the daemon's reply.
    init(fields: WireFields, engine: Engine) {
        id = fields["id"].map(ID.init(text:))
        outcome = fields["outcome"].flatMap(FeedbackOutcome.init(rawValue:)) ?? .play
        reason = fields["reason"].flatMap(SkipReason.init(rawValue:))
        category = fields["category"].flatMap(SoundCategory.init(rawValue:))
        haptic = fields["haptic"].map(HapticPreset.init(_:))
        hapticSkipped = fields["haptic-skipped"].flatMap(HapticSkipReason.init(rawValue:))
        // Whole milliseconds as the service writes them, read without strtod; any other number as before.
        duration = fields["duration-ms"].flatMap { Int($0).map(Double.init) ?? Double($0) }.map { $0 / 1000 }
        self.engine = id == nil ? .none : engine
    }

    #if EmbeddedEngine
    /// From the embedded engine's result, typed: what the daemon's reply
    /// would say, without writing the reply's text and reading it back
    /// (17 % of the library's `play()` in perf's samples). The duration is
    /// in whole milliseconds, as the reply gives it.
    init(result: PlayResult, engine: Engine) {
        id = result.voice.map { ID(text: $0.wireID) }
        outcome = result.outcome
        reason = result.decision.soundSkipReason
        category = result.decision.category
        switch result.haptic {
        case .started(let preset): haptic = HapticPreset(preset); hapticSkipped = nil
        case .skipped(let skip): haptic = nil; hapticSkipped = skip
        case .notDue, .failed: haptic = nil; hapticSkipped = nil
        }
        duration = result.durationMs.map { Double($0) / 1000 }
        self.engine = id == nil ? .none : engine
    }
    #endif

    /// Completes when the sound has ended: played to its end (and through what
    /// the sound server still held of it, so it has been heard), stopped, or
    /// never started.
    ///
    /// Waiting costs nothing while nobody awaits: the service starts watching
    /// for the end on the first `await`. A looping sound ends only when stopped.
    /// A cancelled task stops waiting at once; the sound plays on.
    public var finished: Void {
        get async { await endSignal.wait() }
    }

    /// Whether the sound has ended, as far as is known without waiting.
    public var hasFinished: Bool {
        if case .none = engine { return true }
        return end.load()?.hasEnded ?? false
    }

    /// Blocks the calling thread until the sound has ended: ``finished`` for
    /// scripts and command-line tools. Never call it from an async context.
    public func waitUntilFinished() {
        let done = DispatchSemaphore(value: 0)
        endSignal.whenEnded { done.signal() }
        done.wait()
    }

    /// The one watch all waits share, made by the first.
    private var endSignal: EndSignal {
        if let signal = end.load() { return signal }
        let signal: EndSignal
        switch (engine, id) {
        case (.daemon(let link), let id?):
            signal = EndSignal { done in link.whenEnded(id.text, done) }
        case (.embedded(let engine), let id?):
            signal = EndSignal { done in
                if !engine.whenHeard(id.text, done) { done() }
            }
        default:
            signal = EndSignal(ended: true)
        }
        return end.storeIfNil(signal)
    }

    /// Stops the sound now (it fades out in a few milliseconds); ``finished``
    /// completes. Stopping a sound that has ended does nothing.
    public func stop() async throws(SoundServiceError) {
        let stop = self.stopNow
        try await SoundService.offThePool(stop)
    }

    /// Stops the sound now, from a synchronous context.
    public func stop() throws(SoundServiceError) {
        try stopNow()
    }

    private func stopNow() throws(SoundServiceError) {
        guard let id else { return }
        switch engine {
        case .none: return
        case .embedded(let engine):
            if case .error(let code, let message) = engine.handle(.stop(.voice(id.text))) {
                throw SoundServiceError(code: code, message: message)
            }
        case .daemon(let link):
            let reply: Reply
            do { reply = try link.send(.stop(.voice(id.text))) } catch { throw SoundServiceError(error) }
            if case .error(let code, let message) = reply { throw SoundServiceError(code: code, message: message) }
        }
    }
}

/// A sound's end: known at once, or watched for from the first wait on.
final class EndSignal: Sendable {
    private struct State {
        var ended = false
        var watching = false
        var waiters: [@Sendable () -> Void] = []
    }

    private let state: Locked<State>
    private let watch: (@Sendable (_ ended: @escaping @Sendable () -> Void) -> Void)?

    init(ended: Bool) {
        state = Locked(State(ended: ended))
        watch = nil
    }

    init(watch: @escaping @Sendable (_ ended: @escaping @Sendable () -> Void) -> Void) {
        state = Locked(State())
        self.watch = watch
    }

    var hasEnded: Bool { state.withLock { $0.ended } }

    /// Calls `body` once the end is known (at once if it is).
    func whenEnded(_ body: @escaping @Sendable () -> Void) {
        let (now, start) = state.withLock { s -> (Bool, Bool) in
            if s.ended { return (true, false) }
            s.waiters.append(body)
            defer { s.watching = true }
            return (false, !s.watching)
        }
        if now { return body() }
        if start, let watch { watch { [self] in ended() } }
    }

    /// Returns once the end is known, or when the awaiting task is cancelled
    /// (the sound plays on: cancelling a wait is not stopping the sound).
    func wait() async {
        let resumed = Locked<CheckedContinuation<Void, Never>?>(nil)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                resumed.withLock { $0 = continuation }
                if Task.isCancelled { return Self.resumeOnce(resumed) }
                whenEnded { Self.resumeOnce(resumed) }
            }
        } onCancel: {
            Self.resumeOnce(resumed)
        }
    }

    private static func resumeOnce(_ slot: Locked<CheckedContinuation<Void, Never>?>) {
        slot.withLock { continuation -> CheckedContinuation<Void, Never>? in
            defer { continuation = nil }
            return continuation
        }?.resume()
    }

    private func ended() {
        let waiters = state.withLock { s -> [@Sendable () -> Void] in
            s.ended = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter() }
    }
}
