import COpenAL
import SysoundCore

/// Everything an audio engine knows and changes, as one value: its voices,
/// its clips, the levels, where its output and its idle pause stand, and
/// what its monitor has seen. `AudioEngine` keeps one behind its own lock
/// (`AudioEngine.lock`, one per engine, priority-inheriting) and is the only
/// one that changes it: `play` and `stop` (the loop, a library caller), the
/// render (the own stream's real-time thread, or a loopback caller), the
/// monitor (the loop) and the workers whose device calls return. The core
/// makes no OpenAL or sound-server call: the engine makes them from what the
/// core decides, so every rule here is tested without a device
/// (Tests/SysoundAudioTests/AudioCoreTests.swift), as `HapticsCore` is.
///
/// The state is not one enum, because it is not one machine: the output's
/// life (`OutputState`) and its idle pause (`IdlePause`) are each one value,
/// but a worker's pause or resume stays in flight across a loss or a close
/// (the close waits for it), a reopen runs on a worker whatever the pause
/// did, and an interruption, the volume and the monitor's marks change
/// independently of both.
struct AudioCore {
    let settings: AudioSettings

    init(settings: AudioSettings) {
        self.settings = settings
    }

    // MARK: The output

    /// The output's life: none, attached, its stream lost, closing, closed.
    var outputState = OutputState.none
    /// The output's sources, one per voice slot (`pool[i]` plays on `sources[i]`).
    var sources: [ALuint] = []
    /// The output's name as last logged (at attach, or a move the monitor
    /// saw); what `deviceName` says after a loss.
    var openedDeviceName = ""
    /// How many times an output was attached again after a loss.
    var reopenCount = 0
    /// A worker is opening the device again after a loss (alcOpenDevice),
    /// or connecting a new stream for the kept mix. Under way in `.none` or
    /// `.streamLost`; a close meanwhile does not stop it (what it opens is closed).
    var reopening = false
    /// The output's latency (ns) as the monitor last read it; 0 on loopback.
    var latencyNs: UInt64 = 0
    /// The idle pause of the output (IdlePause.swift): paused for idleness
    /// (`play` ends it), or a worker's pause or resume in flight.
    var idlePause = IdlePause.running
    /// How many times the output was paused for idleness.
    var pauseCount = 0

    // MARK: Voices and clips

    var pool = VoicePool(count: 0)
    var store = ClipStore()
    /// Buffers of dropped clips (a reload's, an evicted file's, a retired
    /// clip's after its last voice), detached from every source and waiting
    /// for `deleteReleasedBuffers` to delete them off the lock: deleting
    /// frees the PCM (a munmap per big clip; 0.1 ms each, 0.9 ms for a
    /// reload's chunk of 8 measured), which the render must not wait for.
    /// They are of the output's context; `detach` deletes what is left.
    var releasedBuffers: [ALuint] = []
    /// Preloads and cache misses whose uploads may be in flight (off the
    /// lock, into the output's context as it was), and released buffers
    /// being deleted: a close waits for them.
    var uploadsInFlight = 0
    /// Who is told when a voice ends (`whenEnded`), by voice.
    var endObservers: [VoiceID: [@Sendable () -> Void]] = [:]

    // MARK: Levels

    /// The system volume (0–1).
    var volume: Float = 1
    var duckRamp = Ramp()
    var hushRamp = Ramp()
    /// An interruption (a call) is in progress.
    var interrupted = false
    /// The clock the ramps last moved at (seconds: monotonic on OpenAL
    /// Soft's device, rendered time where the engine renders).
    var lastTick: Double = 0
    /// Seconds rendered so far (the engine's render clock).
    var renderedSeconds: Double = 0

    // MARK: What the monitor has seen

    /// A voice started since the monitor last looked (it may have ended already).
    var playedSinceCheck = false
    /// When the monitor's check is armed (monotonic seconds; nil: none, it
    /// waits for an event). A play on OpenAL Soft's device wakes the monitor
    /// when its voice may end before that.
    var checkArmedAt: Double?
    /// The monitor's doorbell has rung and its check has not run yet, or it
    /// runs now: the end of the last voice needs no ring.
    var monitorRung = false
    /// Monotonic seconds when the monitor last saw a voice or a play.
    var lastBusy: Double = 0
}

// MARK: - Decisions

/// What the engine does with its core: each rule below changes only the
/// core and says what the engine is to do on the device (stop a source, set
/// gains, ring the monitor, pause or resume on a worker); the engine calls
/// them with its lock held and makes those calls itself.
extension AudioCore {
    /// A voice plays or is paused by an interruption.
    @inline(__always) var anyActive: Bool { pool.voices.contains(where: \.isActive) }
    /// A voice plays now (one paused by an interruption is not heard).
    @inline(__always) var anyPlaying: Bool { pool.voices.contains { $0.phase == .playing } }
    /// The duck and hush ramps have not reached their targets.
    @inline(__always) var rampsMoving: Bool { duckRamp.level != duckRamp.target || hushRamp.level != hushRamp.target }

    // MARK: Playing

    /// What a play decided, for the engine's AL call.
    struct Start: Equatable {
        var id: VoiceID
        /// AL_PITCH: the rate, clamped to 0.5–2.
        var pitch: Float
        /// AL_GAIN at the start: the voice's gain with the volume and the levels now.
        var gain: Float
    }

    /// The slot a play takes: a free one, else the voice to steal (the
    /// engine ends it first: `pool[slot].isActive`).
    @inline(__always) func slotForPlay() -> Int { pool.chooseSlot() }

    /// Fills the free `slot` with a new voice of `clip`. `gain` is the final
    /// gain (0–1) from the policy; the voice keeps it without the system
    /// volume, so that a later volume change applies to it.
    mutating func start(
        slot: Int, clip: Clip, gain: Double, rate: Double, category: SoundCategory, priority: Int,
        duck: Bool, role: MediaRole
    ) -> Start {
        playedSinceCheck = true
        let pitch = rate.isFinite ? Float(min(max(rate, 0.5), 2)) : 1
        let g = gain.isFinite ? Float(min(max(gain, 0), 1)) : 0
        let base = volume > 0 ? min(g / volume, 1) : g
        let id = pool.begin(slot: slot, clip: clip, baseGain: base, category: category, priority: priority, duck: duck).of(role)
        clip.lastUse = store.touch()
        return Start(id: id, pitch: pitch, gain: self.gain(of: slot))
    }

    /// The AL gain of the voice in `slot` now.
    @inline(__always) func gain(of slot: Int) -> Float {
        pool.gain(slot: slot, volume: volume, duckLevel: duckRamp.level, hushLevel: hushRamp.level)
    }

    /// A play on OpenAL Soft's device, whose voice may end at `end`
    /// (monotonic seconds; nil: a loop with no loss watch): whether the
    /// monitor must look before its armed check — a ramp starts, or the voice
    /// ends earlier — and the armed check moved to that end.
    mutating func playNeedsCheck(endingAt end: Double?, duckHeld: Bool) -> Bool {
        let earlier = end.map { end in checkArmedAt.map { $0 > end } ?? true } ?? false
        guard earlier || rampTargetsMove(duckHeld: duckHeld) else { return false }
        checkArmedAt = [checkArmedAt, end].compactMap { $0 }.min()
        return true
    }

    /// A play found the output paused for idleness (or being paused):
    /// ends the pause. True when the engine is to resume the device on a
    /// worker now; false when nothing is to be done (not paused), when the
    /// own stream's kick ends it (`kickResumes`), or when a pause is still in
    /// flight (its worker resumes the device once it returns).
    mutating func playEndsIdlePause(kickResumes: Bool) -> Bool {
        guard idlePause.isPaused else { return false }
        idlePause.endPause()
        if kickResumes { return false }
        if case .pausing = idlePause { return false }
        idlePause = .resuming
        return true
    }

    // MARK: Ends

    /// What the end of a voice asks of the engine.
    struct Ended {
        var voice: VoiceID
        /// Who is told, now (with the engine's lock held, as `whenEnded` says).
        var observers: [@Sendable () -> Void]
        /// The monitor is to look: the engine fell quiet (it arms the idle
        /// pause), or on OpenAL Soft's device the ramps are to move.
        var ringMonitor: Bool
        /// The last voice of a clip a reload retired: its buffer can go.
        var retired: Clip?
    }

    /// The voice in `slot` ended — played out, stopped, stolen or dropped —
    /// at `now` (monotonic seconds): frees the slot. `monitored`: a device
    /// engine with a monitor to ring; `engineMixes`: the engine's render
    /// (not OpenAL Soft's device) moves the ramps.
    mutating func end(slot: Int, role: MediaRole, now: @autoclosure () -> Double, monitored: Bool, engineMixes: Bool, duckHeld: Bool) -> Ended {
        let clip = pool[slot].clip
        let voice = VoiceID(slot: slot, serial: UInt32(truncatingIfNeeded: pool[slot].order), role: role)
        pool.end(slot: slot)
        let observers = endObservers.isEmpty ? [] : endObservers.removeValue(forKey: voice) ?? []
        let quiet = !anyActive
        // One ring until the check has run. The end is the last activity:
        // the idle pause comes `idle_pause_ms` after it, not at once (a cork
        // while the stream still writes the sound's tail is refused, and
        // nothing retries it).
        var ring = false
        if monitored, !monitorRung, !outputState.isClosed, quiet || (!engineMixes && rampTargetsMove(duckHeld: duckHeld)) {
            monitorRung = true
            ring = true
            if quiet { lastBusy = now() }
        }
        var retired: Clip?
        if let clip, clip.retired, !pool.voices.contains(where: { $0.isActive && $0.clip === clip }) {
            store.forget(retired: clip)
            retired = clip
        }
        return Ended(voice: voice, observers: observers, ringMonitor: ring, retired: retired)
    }

    /// Keeps `ended` to be told when `voice` ends; false when it has ended
    /// already (or the engine is closed): the caller tells it at once.
    mutating func observe(_ voice: VoiceID, _ ended: @escaping @Sendable () -> Void) -> Bool {
        guard !outputState.isClosed, pool.isCurrent(voice) else { return false }
        endObservers[voice, default: []].append(ended)
        return true
    }

    // MARK: Ramps

    /// Where the duck and hush levels go while these voices play;
    /// `duckHeld`: another role's ducking voice plays (`AudioEngine.duckHolds`).
    @inline(__always) func rampTargets(duckHeld: Bool) -> (duck: Float, hush: Float) {
        (pool.anyDucking || duckHeld ? settings.duckGain : 1, pool.anySolo ? 0 : 1)
    }

    /// The voices now playing want other levels than the ramps go to (a
    /// ducking or solo voice started or ended): the ramps are to move.
    @inline(__always) func rampTargetsMove(duckHeld: Bool) -> Bool {
        let t = rampTargets(duckHeld: duckHeld)
        return t.duck != duckRamp.target || t.hush != hushRamp.target
    }

    /// Moves the duck and hush ramps to `now` (seconds: monotonic on a
    /// device, rendered time where the engine renders): the hush its whole
    /// travel in `ramp_ms`, the duck its depth in the same time. True when a
    /// level changed: the engine sets the voices' gains.
    mutating func advanceRamps(to now: Double, duckHeld: Bool) -> Bool {
        (duckRamp.target, hushRamp.target) = rampTargets(duckHeld: duckHeld)
        let dt = max(0, now - lastTick)
        lastTick = now
        let ramp = settings.rampMilliseconds / 1000
        let d = duckRamp.advance(dt: dt, rampSeconds: ramp / Double(max(1 - settings.duckGain, 0.001)))
        let h = hushRamp.advance(dt: dt, rampSeconds: ramp)
        return d || h
    }

    /// With no voice playing nothing is audible: the levels go where they
    /// are going at once. True when they moved: the engine sets the gains
    /// (voices paused by an interruption resume at the settled level).
    mutating func settleRampsIfSilent() -> Bool {
        guard !anyPlaying, rampsMoving else { return false }
        duckRamp.level = duckRamp.target
        hushRamp.level = hushRamp.target
        return true
    }

    // MARK: The idle pause and the monitor's check

    /// The idle timer fired at `now`: whether the output is to be paused
    /// now — quiet for `idle_pause_ms` since the last activity, nothing
    /// played since the check, no device call in flight, and the output
    /// able to pause (`canPause`: it can, and it is connected). Marks the
    /// pause begun and counts it.
    mutating func beginIdlePause(now: Double, canPause: Bool) -> Bool {
        let after = settings.idlePauseMilliseconds / 1000
        guard !outputState.isClosed, after > 0, idlePause == .running, !playedSinceCheck, canPause,
              !anyActive, now - lastBusy >= after
        else { return false }
        idlePause = .pausing(resumeOwed: false)
        pauseCount += 1
        return true
    }

    /// The check begins: whether anything played since the last (seen
    /// before its tick: a short voice may end in that very tick).
    mutating func takePlayed() -> Bool {
        defer { playedSinceCheck = false }
        return playedSinceCheck || anyActive
    }

    /// The check at `now`, after its tick: the last activity moves if
    /// anything played or plays, and the idle pause's deadline when the
    /// engine is quiet and its output can pause and is not paused.
    mutating func idleDeadline(now: Double, played: Bool, canPause: Bool) -> Double? {
        let quiet = !anyActive
        if played || !quiet { lastBusy = now }
        let after = settings.idlePauseMilliseconds / 1000
        return quiet && after > 0 && canPause && !idlePause.isPaused ? lastBusy + after : nil
    }

    /// When the check is next needed, nil for "on an event only". Only on
    /// OpenAL Soft's running device (`deviceMixes`): the own stream's render
    /// ends voices and moves the ramps itself and the stream tells its loss,
    /// and a paused device plays nothing. Then: a ramp's next step, else the
    /// earliest foreseen end of a voice (`secondsLeft` of its buffer at its
    /// pitch, plus one mixer update of `refresh` per second, by when OpenAL
    /// Soft has mixed it out); and `lossWatch` (seconds; only where OpenAL
    /// tells no loss) while a voice with no end to foresee holds the device
    /// (a loop; a voice paused by an interruption).
    func nextCheck(
        now: Double, deviceMixes: Bool, refresh: Int, lossWatch: Double?, secondsLeft: (Int, Clip) -> Double?
    ) -> Double? {
        guard deviceMixes, !idlePause.isPaused else { return nil }
        let busy = settings.monitorIntervalMilliseconds / 1000
        if rampsMoving { return now + busy }
        let update = refresh > 0 ? 1 / Double(refresh) : busy
        let watch = lossWatch.map { now + max(busy, $0) }
        var next: Double?
        for i in 0..<pool.count where pool[i].isActive {
            var at = watch
            if pool[i].phase == .playing, let clip = pool[i].clip, let left = secondsLeft(i, clip) {
                at = now + max(left + update, 0.001)
            }
            if let at { next = min(next ?? at, at) }
        }
        return next
    }

    // MARK: The output's life

    /// `out` is attached with these `sources` (one per voice slot): a new
    /// pool, whose start order goes on (an old VoiceID never names a new
    /// voice), levels at rest, no pause. `engineRenders`: the engine's render
    /// clock, not the monotonic one, ticks it.
    mutating func attached(_ out: any AudioOutputDevice, name: String, sources: [ALuint], engineRenders: Bool) {
        outputState = .attached(out)
        idlePause.endPause()
        latencyNs = 0
        if engineRenders { lastTick = renderedSeconds }
        openedDeviceName = name
        self.sources = sources
        pool = VoicePool(count: sources.count, nextOrder: pool.nextOrder)
        duckRamp = Ramp()
        hushRamp = Ramp()
    }

    /// The engine closes: closing with its output (detached once a pause,
    /// resume or upload in flight has returned), or closed without one. No
    /// voice starts, ends or is observed from now on. False when it was
    /// closing or closed already.
    mutating func beginClose() -> Bool {
        if outputState.isClosed { return false }
        outputState = outputState.output.map { .closing($0) } ?? .closed
        return true
    }

    /// The server moved the own stream to the sink `name`: the sink it was
    /// on, for the log; nil when it has not moved.
    mutating func outputMoved(to name: String) -> String? {
        guard name != openedDeviceName else { return nil }
        defer { openedDeviceName = name }
        return openedDeviceName
    }

    /// The output is given up (its voices ended, its sources deleted by the
    /// engine): none, or closed if the engine was closing.
    mutating func detached() {
        sources = []
        pool = VoicePool(count: 0, nextOrder: pool.nextOrder)
        outputState = outputState.isClosed ? .closed : .none
        idlePause.endPause()
    }

    /// The own stream's server went away: its mix is kept (its voices ended
    /// by the engine) until a new stream replaces the lost one.
    mutating func streamLost(_ out: any AudioOutputDevice) {
        outputState = .streamLost(out)
        idlePause.endPause()
    }

    /// A new stream plays the kept mix at `now` (monotonic seconds), or a
    /// reopened output was attached: counted as a reconnection, the busy
    /// clock starting again.
    mutating func reconnected(now: Double) {
        if case .streamLost(let kept) = outputState {
            outputState = .attached(kept)
            latencyNs = 0
            lastTick = renderedSeconds
        }
        reopenCount += 1
        lastBusy = now
    }
}
