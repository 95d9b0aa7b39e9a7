import SysoundCore
import SysoundPlatform

extension AudioEngine {
    /// Calls `ended` once `voice` has ended — played out, stopped, stolen by
    /// a newer sound, or dropped with a lost device — or at once if it has.
    ///
    /// The end is told where the engine notices it (the render, the monitor,
    /// a stop), with the engine's lock held: `ended` must only pass the news
    /// on (resume a continuation, post to a loop or a queue), never block or
    /// call back into the engine. Nothing waits or polls in the meantime.
    package func whenEnded(_ voice: VoiceID, _ ended: @escaping @Sendable () -> Void) {
        if !locked({ core.observe(voice, ended) }) { ended() }
    }
}

extension AudioEngine {
    /// The longest a voice told ended is taken to still be heard, whatever a
    /// sound server reports (ns).
    static let longestTail: UInt64 = 500_000_000

    /// Calls `heard` once `voice` has ended (`whenEnded`) and the output has
    /// played what it still held of it (`untilHeardNanoseconds`): the reply to
    /// `play … wait=1` and `wait ID`, D-Bus `FeedbackEnded`, the library's
    /// `Playback.finished`.
    ///
    /// A device engine tells it on its host's loop, the tail a one-shot timer
    /// there (a millisecond of slack: a person hears no difference, and the
    /// loop may wake once for it and its neighbours). A loopback engine has
    /// no loop and no tail: `heard` is called where the end is noticed, with
    /// the engine's lock held, so it must only pass the news on.
    package func whenHeard(_ voice: VoiceID, _ heard: @escaping @Sendable () -> Void) {
        guard let loop = host?.loop else { return whenEnded(voice, heard) }
        whenEnded(voice) { [self] in
            // The lock is held here: the tail is read on the loop.
            loop.post { [self] in
                let tail = min(untilHeardNanoseconds, Self.longestTail)
                if tail < 1_000 { return heard() }
                do {
                    try loop.addOneShot(after: tail / 1_000, accuracy: .millisecond, heard)
                } catch {
                    logger.error("no timer for the end of voice \(voice) on the loop (\(error)): told ended before its tail is heard")
                    heard()
                }
            }
        }
    }

    /// Blocks until the output has played everything it was given and the
    /// sink has let it out (the own stream's drain, `AudioOutputDevice.drain`),
    /// at most `timeoutSeconds`: a process about to exit calls it once its
    /// voices have ended, or its close would drop what the server still holds.
    /// True when the output said so (or has nothing to hold); false when it
    /// cannot tell (OpenAL Soft's device): then only `untilHeardNanoseconds`
    /// and a margin tell. Not on the host's loop, nor holding the engine's lock.
    package func drainOutput(timeoutSeconds: Double) -> Bool {
        guard let out = locked({ output }) else { return true }
        return out.drain(timeoutSeconds: timeoutSeconds)
    }

    /// Blocks the caller until `voice` has been heard to its end (`whenHeard`):
    /// the embedded engine's synchronous `wait=1`. Never on the host's loop.
    package func waitUntilHeard(_ voice: VoiceID) {
        let done = PosixSemaphore()
        whenHeard(voice) { done.post() }
        done.wait()
    }
}
