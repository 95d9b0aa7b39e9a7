/// The engine's clock step (lock held): ended voices are finished and the
/// duck and hush ramps move. The own stream's render and the loopback render
/// tick with the time they render; the monitor's check ticks OpenAL Soft's
/// device with the monotonic clock.
extension AudioEngine {
    /// The voices now playing want other levels than the ramps go to (lock held).
    var rampTargetsMove: Bool { core.rampTargetsMove(duckHeld: isDuckHeld) }

    /// Sets every active voice's AL gain from its base gain and the levels.
    func applyGains() {
        guard let out = output else { return }
        out.makeCurrent()  // the monitor settles the own stream's ramps without a tick
        for i in 0..<core.pool.count where core.pool[i].isActive {
            AL.setGain(source: core.sources[i], core.gain(of: i))
        }
    }

    /// Notices ended voices and moves the duck and hush ramps; `now` is in
    /// seconds (monotonic on a device, rendered time on loopback).
    func tick(now: Double) {
        guard let out = output else { return }
        out.makeCurrent()
        var ended = false
        for i in 0..<core.pool.count where core.pool[i].phase == .playing && AL.hasEnded(source: core.sources[i]) {
            finish(slot: i)
            ended = true
        }
        if core.advanceRamps(to: now, duckHeld: isDuckHeld) { applyGains() }
        if ended { lock.broadcast() }
    }

    /// With no voice playing nothing is audible: the duck and hush levels go
    /// where they are going at once (lock held), as the stream's render does.
    func settleRampsIfSilent() {
        if core.settleRampsIfSilent() { applyGains() }  // voices paused by an interruption resume at the settled level
    }
}
