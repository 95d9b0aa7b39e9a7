/// The engine's clock step (lock held): ended voices are finished and the
/// duck and hush ramps move. The own stream's render and the loopback render
/// tick with the time they render; the monitor's check ticks OpenAL Soft's
/// device with the monotonic clock.
extension AudioEngine {
    /// Where the duck and hush levels go while these voices play (and
    /// another role's ducking voice, `duckHolds`).
    var rampTargets: (duck: Float, hush: Float) {
        (core.pool.anyDucking || duckHolds.load(ordering: .relaxed) > 0 ? settings.duckGain : 1, core.pool.anySolo ? 0 : 1)
    }

    /// The voices now playing want other levels than the ramps go to (a
    /// ducking or solo voice started or ended): the ramps are to move.
    var rampTargetsMove: Bool {
        let t = rampTargets
        return t.duck != core.duckRamp.target || t.hush != core.hushRamp.target
    }

    /// Sets every active voice's AL gain from its base gain and the levels.
    func applyGains() {
        guard let out = output else { return }
        out.makeCurrent()  // the monitor settles the own stream's ramps without a tick
        for i in 0..<core.pool.count where core.pool[i].isActive {
            AL.setGain(source: core.sources[i], core.pool.gain(slot: i, volume: core.volume, duckLevel: core.duckRamp.level, hushLevel: core.hushRamp.level))
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
        (core.duckRamp.target, core.hushRamp.target) = rampTargets
        let dt = max(0, now - core.lastTick)
        core.lastTick = now
        let ramp = settings.rampMilliseconds / 1000
        let d = core.duckRamp.advance(dt: dt, rampSeconds: ramp / Double(max(1 - settings.duckGain, 0.001)))
        let h = core.hushRamp.advance(dt: dt, rampSeconds: ramp)
        if d || h { applyGains() }
        if ended { lock.broadcast() }
    }

    /// With no voice playing nothing is audible: the duck and hush levels go
    /// where they are going at once (lock held), as the stream's render does.
    func settleRampsIfSilent() {
        guard !core.pool.voices.contains(where: { $0.phase == .playing }),
              core.duckRamp.level != core.duckRamp.target || core.hushRamp.level != core.hushRamp.target else { return }
        core.duckRamp.level = core.duckRamp.target
        core.hushRamp.level = core.hushRamp.target
        applyGains()  // voices paused by an interruption resume at the settled level
    }
}
