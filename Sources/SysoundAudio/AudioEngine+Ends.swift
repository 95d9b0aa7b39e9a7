extension AudioEngine {
    /// Calls `ended` once `voice` has ended — played out, stopped, stolen by
    /// a newer sound, or dropped with a lost device — or at once if it has.
    ///
    /// The end is told where the engine notices it (the render, the monitor,
    /// a stop), with the engine's lock held: `ended` must only pass the news
    /// on (resume a continuation, post to a loop or a queue), never block or
    /// call back into the engine. Nothing waits or polls in the meantime.
    public func whenEnded(_ voice: VoiceID, _ ended: @escaping @Sendable () -> Void) {
        let now = locked { () -> Bool in
            guard !closed, pool.isCurrent(voice) else { return true }
            endObservers[voice, default: []].append(ended)
            return false
        }
        if now { ended() }
    }

    /// Tells the observers of `voice` that it ended (lock held: see `whenEnded`).
    func tellEnded(_ voice: VoiceID) {
        guard let observers = endObservers.removeValue(forKey: voice) else { return }
        for observer in observers { observer() }
    }
}
