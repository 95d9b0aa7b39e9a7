import COpenAL
import FoundationEssentials
import Glibc
import Logging
import Synchronization
import SysoundCore
import SysoundPlatform

/// The audio engine: one OpenAL device and context for the life of the
/// process, preloaded clips, a fixed voice pool, and the primitives the policy
/// layer drives (stop, silence categories, duck, hush, interruptions, volume).
///
/// Thread-safe: every method takes the engine's own lock (`lock`, one per
/// engine, priority-inheriting) for its state and short AL calls only, never
/// across a call that may wait for the device or the sound server, with the
/// engine's context current on the calling thread meanwhile
/// (`ALThreadContext`); no engine takes another's lock. `play` does no file
/// I/O, decoding or allocation.
///
/// Its state is one value, `core` (`AudioCore`, AudioCore.swift), which
/// decides; this class is the shell that holds it under `lock` and makes the
/// AL and device calls the core's decisions ask for. This file holds the
/// engine and its voices; AudioEngine+Output.swift its output (attach,
/// the monitor's check and reopen, the idle pause, the render, its facts);
/// AudioEngine+Clips.swift its clips.
///
/// A device engine runs on a `LoopHost` (AudioMonitor.swift): its
/// timers (voice ends, ramps, device loss, the idle pause) are sources on the
/// host's loop, and the device calls that may wait for the sound server
/// (pausing, resuming, reopening, closing) run on the host's workers.
package final class AudioEngine: @unchecked Sendable {
    package let settings: AudioSettings
    package let outputKind: AudioOutput
    /// The `media.role` of the own stream, and of every voice this engine plays.
    package let role: MediaRole
    let logger: Logger

    /// The engine's lock and its condition (ends, pauses and uploads waited
    /// for). Taken by the loop (play, stop, the monitor), the workers, the
    /// own stream's real-time render and any library caller, for this
    /// engine only; priority-inheriting, so the render boosts a holder.
    /// Lock order: the stream's mainloop lock, this lock, `OpenALListLock`.
    let lock = PriorityInheritingCondition()

    /// The engine's state, one value changed only under `lock` (AudioCore.swift).
    var core: AudioCore
    /// The output voices play on (`OutputState.output`).
    var output: (any AudioOutputDevice)? { core.outputState.output }
    /// Clips decoded again to give a new device their buffers (`reupload`).
    let reuploads = Atomic<Int>(0)
    /// Ducking voices of other media roles' engines ("Other media roles" below):
    /// this engine's voices duck while any plays. An atomic, not under
    /// `lock`: another engine changes it with its own lock held.
    let duckHolds = Atomic<Int>(0)
    /// Held by a whole theme's preload (not under `lock`).
    let themeLoads = PthreadLock()
    /// Where a device engine's timers and device calls run; nil on loopback.
    let host: LoopHost?
    let monitor: AudioMonitor?
    /// Makes a device's audio threads real-time as they start; nil leaves them be.
    let realtime: RealtimeThreads?

    /// Opens the output and creates the voice pool.
    ///
    /// - Parameter host: the loop and workers a device engine runs on (the
    ///   daemon's); nil uses `AudioEngine.embeddedHost`, a loop on a thread
    ///   of its own shared by the process's engines. Loopback engines need none.
    /// - Throws: `AudioError.noOutputDevice` when `.device` is asked and
    ///   `alcOpenDevice(NULL)` finds nothing; `.missingExtension` when the
    ///   OpenAL implementation lacks loopback rendering; `.openAL` naming the
    ///   audio loop when no embedded loop can be started.
    /// - Parameter realtime: makes the device's audio threads (OpenAL Soft's
    ///   mixer, libpulse's mainloop) real-time at open and at each resume;
    ///   the daemon passes one, with rtkit as its broker.
    /// - Parameter server: what `SoundServerProbe.ask()` answered just now,
    ///   if the caller asked (ServiceSetup does, before every open): the
    ///   `auto` output then does not ask again. Nil: it asks itself.
    /// - Parameter role: the own stream's `media.role` (AudioRoles opens one engine per role).
    /// - Parameter logger: where the engine logs (an app's library passes its own: LibraryLog).
    package init(
        settings: AudioSettings = .defaults, output: AudioOutput = .device, host: LoopHost? = nil,
        realtime: RealtimeThreads? = nil, server: SoundServerProbe.Answer? = nil, role: MediaRole = .event,
        logger: Logger = Logger(label: "sysound.audio")
    ) throws(AudioError) {
        self.logger = logger
        self.settings = settings
        core = AudioCore(settings: settings)
        self.outputKind = output
        self.role = role
        self.realtime = realtime
        // Before the embedded host's threads: a no-op once any thread runs.
        AudioProcess.prepare(settings)
        if output == .device {
            let host = if let host { host } else { try Self.embeddedHost() }
            self.host = host
            monitor = AudioMonitor(host: host, settings: settings)
        } else {
            self.host = nil
            monitor = nil
        }
        // One open at a time in the process: an open finds the threads it
        // started by watching the process's thread list (AudioThreads).
        Self.opens.lock()
        let out: any AudioOutputDevice
        do {
            // OpenAL Soft has read its config at the first open, failed or not.
            defer {
                AudioProcess.configurationRead()
                Self.opens.unlock()
            }
            switch output {
            case .device: out = try AudioOutputs.openDevice(settings, role: role, realtime: realtime, server: server)
            case .loopback: out = try LoopbackOutput.open(settings)
            }
        }
        // Every engine keeps its context current per thread; OpenAL Soft has had the extension since 1.13.
        guard ALThreadContext.isAvailable else {
            out.close()
            throw .missingExtension("ALC_EXT_thread_local_context")
        }
        out.start(for: self)
        locked {
            attach(out)
            if output == .device {
                core.lastBusy = Self.monotonicSeconds()
                // A device's own mixer is ticked by the monitor, on the monotonic clock.
                if out.whoMixes == .device { core.lastTick = core.lastBusy }
            }
        }
        out.prime()
        let voiceMemory = out.al.voiceMemory == .kept ? "" : "; \(out.al.voiceMemory)"
        logger.info("audio output \(out.name): \(out.summary), \(core.sources.count) voices\(voiceMemory)")
        monitor?.start(self)
    }

    /// Held around every engine's device open (`AudioThreads` takes it too,
    /// for a reopen or a resume), so two opens never overlap.
    static var opens: PthreadLock { AudioThreads.opens }

    /// The last reference may go on any thread, libpulse's own among them (a
    /// render holds the engine while it runs): closing the stream there would
    /// stop its mainloop from inside it. A device engine's output is closed
    /// on its host's workers; a loopback output has no thread of its own.
    deinit { shutdown(closingOnWorker: host != nil) }

    /// Stops every voice, removes the monitor's timers, and closes the device
    /// (waiting for a pause or resume in flight). Called on the running loop's
    /// thread, it leaves the closing to a worker.
    package func shutdown() {
        shutdown(closingOnWorker: host?.loop.isLoopThread == true)
    }

    private func shutdown(closingOnWorker: Bool) {
        let out = locked { () -> (any AudioOutputDevice)?? in
            if !core.beginClose() { return nil }
            // The device may not close under a pause or resume in flight, nor
            // under an upload into its context (a preload on a worker). Waited
            // for here, so the close below needs nothing of the engine: from
            // `deinit` no closure may keep `self`.
            while core.idlePause.callInFlight || core.uploadsInFlight > 0 { lock.wait() }
            defer { lock.broadcast() }
            return .some(detach())
        }
        guard let out else { return }
        monitor?.stop()
        if let out, let host, closingOnWorker {
            host.workers.submit { out.close() }
        } else {
            out?.close()
        }
    }

    // MARK: - Playing

    /// Starts `clip` on a free voice, or on the lowest-priority, oldest voice.
    ///
    /// - Parameters:
    ///   - gain: the final gain from `Policy.decide` (clip × request × category ×
    ///     system volume); the engine divides out its current `volume` to keep
    ///     the voice's pre-volume gain for later volume changes.
    ///   - rate: playback rate and pitch, clamped to 0.5–2 (AL_PITCH).
    ///   - priority: the sound entry's priority, the tie-breaker when stealing.
    ///   - loop: repeat until stopped (AL_LOOPING).
    ///   - duck: lower every other voice by `settings.duckDecibels` while it plays.
    /// - Throws: `.deviceUnavailable` while the device is lost; `.clipNotLoaded`
    ///   for an evicted clip, or a theme sound dropped and not replaced.
    package func play(
        _ clip: Clip, gain: Double = 1, rate: Double = 1, category: SoundCategory = .ambient,
        priority: Int = 0, loop: Bool = false, duck: Bool = false
    ) throws(AudioError) -> VoiceID {
        // The voice starts first and the device resumes after, off this
        // thread: the mixer's first period after the resume holds the voice.
        var resume: (any AudioOutputDevice)?
        var wake = false
        lock.lock()
        guard let out = output, core.pool.count > 0 else { lock.unlock(); throw .deviceUnavailable }
        // A theme sound replaced since the caller looked it up (a reload, or
        // the theme's load at start finishing after a play loaded the sound
        // itself) plays its replacement: the name is what was asked for.
        var clip = clip
        if clip.buffer == 0, let current = core.store.named[clip.name], current.buffer != 0 { clip = current }
        guard clip.buffer != 0 else { lock.unlock(); throw .clipNotLoaded(clip.name) }
        // A lost output answers that there is no device, never "played":
        // the own stream's loss is told at once (its new stream may be on
        // the way); where OpenAL Soft tells no loss (no disconnect event;
        // ALSA while paused), a paused device playing nothing, a loss matters
        // from the next play on, which finds it here and has the monitor reopen.
        if core.outputState.isStreamLost || (!out.isConnected && (out.hasToldLoss || !core.idlePause.callInFlight)) {
            lock.unlock()
            monitor?.outputFailed()
            throw .deviceUnavailable
        }
        let previousContext = ALThreadContext.current
        out.makeCurrent()
        let slot = core.slotForPlay()
        if core.pool[slot].isActive {
            finish(slot: slot)
            lock.broadcast() // a waiter on the stolen voice
        }
        let start = core.start(slot: slot, clip: clip, gain: gain, rate: rate, category: category, priority: priority, duck: duck, role: role)
        AL.start(source: core.sources[slot], buffer: clip.buffer, gain: start.gain, pitch: start.pitch, loop: loop)
        // The own stream's render tells the voice's end and moves the ramps.
        // On OpenAL Soft's device the check foresees the end, and must look
        // now if a ramp starts, or before the armed check if the voice may
        // end earlier (a loop has no end: at most the loss watch).
        if out.whoMixes == .device {
            let now = Self.monotonicSeconds()
            let end = loop ? lossWatch(out).map { now + $0 } : now + clip.duration / Double(start.pitch)
            wake = core.playNeedsCheck(endingAt: end, duckHeld: isDuckHeld)
        }
        // The stream's kick uncorks it (after writing); a cork still in
        // flight is undone by its worker once it returns.
        if core.playEndsIdlePause(kickResumes: out.playEndsPause) { resume = out }
        // A stream still rendering mixes the voice into its next block, where
        // a kick would write it too: only a drained stream is woken.
        let drained = out.isWriting ? nil : out.writer
        ALThreadContext.restore(previousContext)
        lock.unlock()
        // None waits: the kick is an eventfd write (the stream's thread mixes
        // and writes the voice now), the resume goes to a worker (which wakes
        // the monitor once the device runs: one thread woken from here, not
        // two), the wake to the loop.
        drained?.kick()
        if let resume {
            resumeLater(resume)
        } else if wake {
            monitor?.wake()
        }
        return start.id
    }

    /// Whether `voice` is still playing (or paused by an interruption).
    package func isPlaying(_ voice: VoiceID) -> Bool {
        locked {
            guard core.pool.isCurrent(voice), let out = output else { return false }
            out.makeCurrent()
            if core.pool[voice.slot].phase == .playing && AL.hasEnded(source: core.sources[voice.slot]) {
                finish(slot: voice.slot)
                lock.broadcast()
                return false
            }
            return true
        }
    }

    /// Blocks until `voice` ends or `timeout` seconds pass; returns whether it ended.
    /// On a device engine the own stream's render or the monitor's check at the
    /// voice's foreseen end notices it; on a loopback engine another thread must render.
    @discardableResult
    package func wait(for voice: VoiceID, timeout: Double? = nil) -> Bool {
        let deadline = timeout.map { EventLoop.monotonicNow() + UInt64(max($0, 0) * 1e6) }
        lock.lock()
        defer { lock.unlock() }
        while core.pool.isCurrent(voice) && !core.outputState.isClosed {
            if let d = deadline {
                if !lock.wait(until: d) { return !core.pool.isCurrent(voice) }
            } else {
                lock.wait()
            }
        }
        return true
    }

    // MARK: - Internals (lock held)

    /// `body` with the engine's lock held; the context current on this
    /// thread before is current again after (`body` makes the output's
    /// current where it calls AL: `makeCurrent()`).
    func locked<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        lock.lock()
        let previous = ALThreadContext.current
        defer {
            ALThreadContext.restore(previous)
            lock.unlock()
        }
        return try body()
    }

    /// `body` with the engine's lock held, for a read of the engine's own
    /// state that calls no AL: no context to remember and put back (two
    /// `alcGetThreadContext` and an `alcSetThreadContext` fewer than `locked`,
    /// on the play path: the clip's lookup, the reply's device name).
    func guarded<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Stops the source of `slot` and frees it. Callers broadcast the condition.
    func finish(slot: Int) {
        if let out = output {
            out.makeCurrent()  // mostly made so by the caller already: a thread-local read
            AL.stop(source: core.sources[slot])
        }
        // The last voice ended (the render, a stop): the monitor arms the idle
        // pause and lets its timer be; or, on OpenAL Soft's device, a ducking
        // or solo voice was stopped: the check moves the ramps.
        let ended = core.end(
            slot: slot, role: role, now: Self.monotonicSeconds(), monitored: monitor != nil,
            engineMixes: output?.whoMixes == .engine, duckHeld: isDuckHeld)
        for observer in ended.observers { observer() }
        if ended.ringMonitor { monitor?.ring() }
        // The last voice of a clip a reload replaced: its buffer can go now,
        // off the lock (the render may be here): the monitor's check deletes it.
        if let clip = ended.retired {
            release(clip)
            monitor?.ring()
        }
    }
}

extension AudioEngine {
    /// The loop shared by the process's embedded device engines (the library,
    /// the CLI without a daemon, tools, tests): one thread and two workers for
    /// the life of the process, however many engines come and go.
    static func embeddedHost() throws(AudioError) -> LoopHost {
        do { return try LoopHost.embedded() } catch {
            throw .openAL(operation: "starting the audio loop (\(error))", code: 0)
        }
    }

    static func monotonicSeconds() -> Double {
        Double(EventLoop.monotonicNow()) / 1e6
    }
}

// MARK: - Stops, the volume, interruptions

/// The primitives the policy layer drives beyond a play: stops, the system
/// volume, and interruptions (a call pauses what may resume and drops the rest).
extension AudioEngine {
    /// Stops one voice now; a stale ID is ignored.
    package func stop(_ voice: VoiceID) {
        locked {
            guard core.pool.isCurrent(voice) else { return }
            output?.makeCurrent()
            finish(slot: voice.slot)
            lock.broadcast()
        }
    }

    /// Ends a looping voice's loop: it plays to the end of the round in
    /// progress and stops there (AL_LOOPING off); a stale ID is ignored. On
    /// OpenAL Soft's device the monitor looks again, as the voice now has an
    /// end to foresee; the own stream's render tells it by itself.
    package func endLoop(_ voice: VoiceID) {
        let foresee = locked { () -> Bool in
            guard core.pool.isCurrent(voice), let out = output else { return false }
            out.makeCurrent()
            AL.setLooping(source: core.sources[voice.slot], false)
            return out.whoMixes == .device
        }
        if foresee { monitor?.wake() }
    }

    /// Stops every voice.
    package func stopAll() { stopVoices(categories: Set(SoundCategory.allCases)) }

    /// Stops the voices of these categories (silent mode on: `[.ambient, .soloAmbient]`).
    package func stopVoices(categories: Set<SoundCategory>) {
        locked {
            output?.makeCurrent()
            for i in 0..<core.pool.count where core.pool[i].isActive && categories.contains(core.pool[i].category) {
                finish(slot: i)
            }
            lock.broadcast()
        }
    }

    /// The system volume (0–1) the engine applies now.
    package var appliedVolume: Double { locked { Double(core.volume) } }

    /// The system volume (0–1) the engine applies; changing it re-applies the
    /// gain of every voice now playing.
    package func setVolume(_ newValue: Double) {
        locked {
            core.volume = newValue.isFinite ? Float(min(max(newValue, 0), 1)) : 0
            output?.makeCurrent()
            applyGains()
        }
    }

    /// An interruption begins (e.g. a phone call): `playback` and `alert`
    /// voices pause where they are, ambient voices stop.
    package func beginInterruption() {
        locked {
            output?.makeCurrent()
            core.interrupted = true
            for i in 0..<core.pool.count where core.pool[i].phase == .playing {
                switch core.pool[i].category.interruptionRule {
                case .notStarted: finish(slot: i)
                case .deferredUntilResumableEnd:
                    AL.pause(source: core.sources[i])
                    core.pool[i].phase = .paused
                }
            }
            lock.broadcast()
        }
    }

    /// The interruption ends: paused voices resume where they were when
    /// `resumable`, else they are dropped.
    package func endInterruption(resumable: Bool) {
        let out = locked { () -> (writer: (any MixWriter)?, foresees: Bool)? in
            output?.makeCurrent()
            core.interrupted = false
            for i in 0..<core.pool.count where core.pool[i].phase == .paused {
                if resumable {
                    core.pool[i].phase = .playing
                    AL.resume(source: core.sources[i])
                } else {
                    finish(slot: i)
                }
            }
            lock.broadcast()
            return output.map { ($0.writer, $0.whoMixes == .device) }
        }
        // Resumed voices are written from now on; on OpenAL Soft's device the
        // check foresees their ends.
        if resumable, let out {
            if let writer = out.writer { writer.kick() } else if out.foresees { monitor?.wake() }
        }
    }

    /// Whether an interruption is in progress.
    package var isInterrupted: Bool { locked { core.interrupted } }
}

// MARK: - The clock step: ends and ramps

/// The engine's clock step (lock held): ended voices are finished and the
/// duck and hush ramps move. The own stream's render and the loopback render
/// tick with the time they render; the monitor's check ticks OpenAL Soft's
/// device with the monotonic clock.
extension AudioEngine {
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

// MARK: - Who is told of an end

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

// MARK: - Other media roles

/// What the engines of other media roles ask of this one (AudioRoles in
/// SysoundFeedback keeps one engine per role in use). Each engine has its
/// own lock and takes no other's: another role's ducking voice reaches this
/// engine only through `duckHolds`, a count it changes without a lock.
extension AudioEngine {
    /// `voice` (of this engine) ducks: the voices of `others` duck with it,
    /// by the same `duck_db` and ramp as one of their own would, until it
    /// ends (played out, stopped, stolen, or the engine closed). Their ramps
    /// move at their next tick, which runs while anything of them plays;
    /// with nothing playing there is nothing to duck.
    package func duck(_ others: [AudioEngine], whilePlaying voice: VoiceID) {
        locked {
            guard !others.isEmpty else { return }
            // Told with this engine's lock held (`finish`): the others' counts are atomics, not under it.
            guard core.observe(voice, { for other in others { other.releaseDuckHold() } }) else { return }
            for other in others { other.duckHolds.add(1, ordering: .relaxed) }
        }
    }

    /// Whether another role's ducking voice holds this engine's voices down.
    package var isDuckHeld: Bool { duckHolds.load(ordering: .relaxed) > 0 }

    /// One ducking voice of another role ended (never below 0).
    private func releaseDuckHold() {
        var held = duckHolds.load(ordering: .relaxed)
        while held > 0 {
            let (done, now) = duckHolds.compareExchange(expected: held, desired: held - 1, ordering: .relaxed)
            if done { return }
            held = now
        }
    }
}
