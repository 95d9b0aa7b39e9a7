import COpenAL
import Logging
import SysoundCore
import SysoundPlatform

/// The watch over a device engine, run by its host's loop: timers and one
/// doorbell, no thread of its own, and no timer at all while nothing plays.
///
/// - The check notices ended voices, moves the duck and hush ramps, reads
///   ALC_CONNECTED and arms the idle pause. It runs when something tells it
///   to — the doorbell, rung by whoever ends the last voice (the own
///   stream's render, which plays voices out, or a stop) or, on OpenAL
///   Soft's device, stops a ducking or solo voice; a play or a resume on
///   OpenAL Soft's device (`wake`); the stream's failure, OpenAL Soft's
///   disconnect event or a play that finds its device lost (`outputFailed`)
///   — and on OpenAL Soft's device, which tells no voice's end, at the time
///   the engine foresees (`AudioEngine.nextCheck`): a voice's end, a ramp's
///   next step, the loss watch of a loop where OpenAL tells no loss.
///   Paused, or quiet, or on the own stream, it arms no timer.
/// - The idle timer is one-shot, armed by the check that first finds the
///   engine quiet, at the last activity + `idlePauseMilliseconds`; activity
///   since then makes it do nothing, and the next quiet check arms it again.
/// - After a loss the retry timer reopens the device on a worker, backing off
///   to `maxReopenBackoffMilliseconds`; the opened output comes back to the
///   loop and is attached there.
///
/// Loop thread only, but for `start`, `wake`, `ring`, `outputFailed` and
/// `stop`, which post to it or ring it.
final class AudioMonitor: @unchecked Sendable {
    // @unchecked: every stored property but the doorbell (itself thread-safe)
    // is used on the loop thread only.
    let host: LoopHost
    private let busyInterval: Double
    private let maxBackoff: Double
    private weak var engine: AudioEngine?
    private var check: EventSource?
    private var idle: EventSource?
    private var retry: EventSource?
    /// Rung from any thread, the render's real-time thread included: no
    /// allocation, no lock, one write(2).
    private let doorbell: Doorbell?
    /// Why there is no doorbell, logged once the engine (and its logger) is known.
    private let doorbellProblem: String?
    private var backoff = 0.05
    /// Why the last reopen failed, as logged; nil once one succeeded.
    private var lastReopenFailure: String?
    private var stopped = false

    init(host: LoopHost, settings: AudioSettings) {
        self.host = host
        busyInterval = settings.monitorIntervalMilliseconds / 1000
        maxBackoff = settings.maxReopenBackoffMilliseconds / 1000
        do {
            doorbell = try Doorbell()
            doorbellProblem = nil
        } catch {
            doorbell = nil
            doorbellProblem = "\(error)"
        }
    }

    /// Adds the timers and the doorbell on the loop (from any thread; before
    /// the loop runs, they are added when it does).
    func start(_ engine: AudioEngine) {
        self.engine = engine
        host.loop.post { [self] in
            guard !stopped else { return }
            do {
                let now = EventLoop.monotonicNow()
                check = try host.loop.addTimer(at: now + Self.micros(busyInterval), accuracy: .exact) { [unowned self] _ in checkNow() }
                idle = try host.loop.addTimer(at: now, accuracy: .exact) { [unowned self] _ in idleTimeReached() }
                idle?.setEnabled(false)
                retry = try host.loop.addTimer(at: now, accuracy: .exact) { [unowned self] _ in reopen() }
                retry?.setEnabled(false)
                if let doorbell {
                    try doorbell.watch(on: host.loop) { [unowned self] in checkNow() }
                } else {
                    engine.logger.critical("audio monitor has no eventfd (\(doorbellProblem ?? "unknown")): after a sound ends on the own stream the device may not pause")
                }
            } catch {
                engine.logger.critical("audio monitor cannot start on its loop: \(error); voice ends and device loss go unnoticed")
            }
        }
    }

    /// Has the check run soon: a play or a resume on OpenAL Soft's device
    /// (whose voice's end is then foreseen). From any thread; never waits.
    func wake() {
        if host.loop.isLoopThread {
            wakeNow()
        } else {
            host.loop.post { [self] in wakeNow() }
        }
    }

    /// Has the check run: the engine fell quiet (its last voice ended), or a
    /// stop moved the ramps on OpenAL Soft's device. From any thread, the
    /// render's included (an engine's lock may be held): one write.
    func ring() { doorbell?.ring() }

    /// The output reported its loss (the own stream's failure, OpenAL Soft's
    /// disconnect event), or a play found it: checks at once. From any
    /// thread; never waits.
    func outputFailed() {
        host.loop.post { [self] in
            guard !stopped else { return }
            checkNow()
        }
    }

    /// Removes the timers (from any thread: on the loop's next iteration).
    func stop() {
        host.loop.post { [self] in
            stopped = true
            check?.cancel()
            idle?.cancel()
            retry?.cancel()
            doorbell?.stopWatching()
            check = nil; idle = nil; retry = nil
        }
    }

    /// Runs the check in this loop iteration, after the caller's work (a
    /// play's reply goes out first): an elapsed timer wakes no one.
    private func wakeNow() {
        guard !stopped, let engine, engine.isConnected else { return }
        check?.schedule(at: EventLoop.monotonicNow())
    }

    private func checkNow() {
        guard !stopped, let engine else { return }
        // Buffers a render or a stop released (a replaced clip's last voice
        // ended): deleted here, never on the render's thread.
        engine.deleteReleasedBuffers()
        let now = EventLoop.monotonicNow()
        switch engine.monitorCheck(now: Double(now) / 1e6) {
        case .nothing:
            return
        case .running(let next, let idleDeadline):
            // Armed only where the engine foresees something to see; else the
            // next event (a play, the doorbell, a loss told) runs the check.
            if let next { check?.schedule(at: UInt64(next * 1e6)) } else { check?.setEnabled(false) }
            if let idleDeadline { idle?.schedule(at: UInt64(idleDeadline * 1e6)) }
        case .lost(let gone):
            check?.setEnabled(false)
            // Closing a lost device still talks to the server's socket: a worker's job.
            if let gone { host.workers.submit { engine.closeAfterUploads(gone) } }
            backoff = 0.05
            retry?.schedule(at: now)
        }
    }

    private func idleTimeReached() {
        guard let engine else { return }
        guard let out = engine.beginIdlePause(now: Double(EventLoop.monotonicNow()) / 1e6) else {
            // OpenAL Soft's device lost while quiet (no check watched it): reopen now.
            if engine.outputGone { checkNow() }
            return
        }
        host.workers.submit { engine.pauseOnWorker(out) }
    }

    private func reopen() {
        guard let engine else { return }
        let settings = engine.settings, realtime = engine.realtime, role = engine.role
        let kept = engine.locked { () -> (any ReconnectingOutput)? in
            engine.core.reopening = true
            return engine.lostStreamOutput
        }
        host.workers.submit({ () -> Reopened in
            // Waiting on the sound server (or its absence) is a worker's, not the loop's.
            // The own stream's mix needs no server: only the stream is made again,
            // unless on `auto` the server is gone for good (OpenAL Soft's device then, as at start).
            if let kept, settings.backend != .auto || SoundServerProbe.ask() != .absent {
                AudioThreads.opens.lock()
                defer { AudioThreads.opens.unlock() }
                do throws(AudioError) {
                    return .stream(try kept.connectAgain(settings, role: role, realtime: realtime))
                } catch {
                    return .failed(error)
                }
            }
            // A new device's clips go up into its context here too, not under the lock on the loop.
            do throws(AudioError) {
                let out = try AudioOutputs.openDevice(settings, role: role, realtime: realtime)
                return .output(out, buffers: engine.uploadClips(into: out))
            } catch {
                return .failed(error)
            }
        }, then: { [self] result in
            engine.locked { engine.core.reopening = false }
            switch result {
            case .stream(let stream): reconnected(stream)
            case .output(let out, let buffers): reopened(out, buffers: buffers)
            case .failed(let error): reopenFailed(error)
            }
        })
    }

    /// A `reopen` that opened nothing: says why (once per cause, not at
    /// every attempt of a server that stays away) and tries again later, backing off.
    private func reopenFailed(_ error: AudioError) {
        guard !stopped, let engine else { return }
        let cause = error.description
        if cause != lastReopenFailure {
            engine.logger.warning("cannot reopen the audio output (\(cause)); retrying every \(Int(maxBackoff * 1000)) ms at most")
            lastReopenFailure = cause
        }
        retryLater(EventLoop.monotonicNow())
    }

    /// Tries the reopen again later, backing off.
    private func retryLater(_ now: UInt64) {
        retry?.schedule(at: now + Self.micros(backoff))
        backoff = min(backoff * 2, maxBackoff)
    }

    /// The completion of a whole device's `reopen`, on the loop.
    private func reopened(_ out: any AudioOutputDevice, buffers: [(Clip, ALuint)]) {
        guard !stopped, let engine else {
            host.workers.submit { out.close() }
            return
        }
        let now = EventLoop.monotonicNow()
        lastReopenFailure = nil
        if engine.attachReopened(out, now: Double(now) / 1e6, buffers: buffers) {
            check?.schedule(at: now + Self.micros(busyInterval))
        } else {
            host.workers.submit { out.close() }
        }
    }

    /// The completion of a stream's `reopen`, on the loop.
    private func reconnected(_ stream: PulseStream) {
        guard !stopped, let engine else {
            host.workers.submit { stream.close() }
            return
        }
        let now = EventLoop.monotonicNow()
        lastReopenFailure = nil
        if let lost = engine.replaceLostStream(with: stream, now: Double(now) / 1e6) {
            // Closing still talks to the server's socket: a worker's job.
            host.workers.submit { lost.close() }
            check?.schedule(at: now + Self.micros(busyInterval))
        } else {
            host.workers.submit { stream.close() }
        }
    }

    static func micros(_ seconds: Double) -> UInt64 { UInt64(max(seconds, 0) * 1e6) }
}

/// A worker's reopen, handed to the loop: a stream for the own stream's
/// kept mix, or a whole output with the clips' buffers made in its context
/// before it is attached; or why nothing could be opened.
private enum Reopened: @unchecked Sendable {
    // @unchecked: what it holds is used by one thread at a time (worker, then loop).
    case stream(PulseStream)
    case output(any AudioOutputDevice, buffers: [(Clip, ALuint)])
    case failed(AudioError)
}

/// What the monitor's check found.
enum MonitorStep {
    /// The engine is closed, or between a loss and its reopen (the retry timer runs).
    case nothing
    /// The device runs or is paused. `next` (monotonic seconds) is when the
    /// check is needed again, nil when only an event can change anything;
    /// `idleDeadline` arms the idle pause.
    case running(next: Double?, idleDeadline: Double?)
    /// The device is gone; `gone` (the output detached now, if any) is to be closed.
    case lost(gone: (any AudioOutputDevice)?)
}

extension AudioEngine {
    /// The loop shared by the process's embedded device engines (the library,
    /// the CLI without a daemon, tools, tests): one thread and two workers for
    /// the life of the process, however many engines come and go.
    package static func embeddedHost() throws(AudioError) -> LoopHost {
        do { return try LoopHost.embedded() } catch {
            throw .openAL(operation: "starting the audio loop (\(error))", code: 0)
        }
    }

    /// The monitor's look (loop thread, takes the lock briefly).
    func monitorCheck(now: Double) -> MonitorStep {
        locked { () -> MonitorStep in
            let out: any AudioOutputDevice
            switch core.outputState {
            case .attached(let attached), .streamLost(let attached): out = attached
            case .none, .closing, .closed: return .nothing
            }
            // A voice ending in this very check needs no doorbell.
            core.monitorRung = true
            defer { core.monitorRung = false }
            // The server moved the own stream to another sink (PulseStream's moved callback).
            if out.name != core.openedDeviceName {
                logger.info("audio output now on \(out.name) (was \(core.openedDeviceName))")
                core.openedDeviceName = out.name
            }
            // Waiting for the stream that replaces a lost one (`reopen`).
            if core.outputState.isStreamLost { return .nothing }
            // A pause or resume in flight keeps the device open: the loss is handled at a later check.
            if !out.isConnected && !core.idlePause.callInFlight {
                core.checkArmedAt = nil
                defer { lock.broadcast() }
                // The own stream's mix, sources and buffers need no server: they stay.
                if out.reconnection != nil {
                    logger.warning("audio output \(out.name) lost its sound server; voices dropped, connecting a new stream (the mix and its clips stay)")
                    dropVoices(out)
                    core.outputState = .streamLost(out)
                    core.idlePause.endPause()
                    return .lost(gone: nil)
                }
                logger.warning("audio device \(out.name) disconnected; voices dropped, core.reopening")
                return .lost(gone: detach())
            }
            // Not while a worker pauses or resumes: the query would wait for its
            // backend lock. The own stream's is read when asked (`outputLatencyNanoseconds`).
            if !out.keepsTiming && core.idlePause == .running { core.latencyNs = out.latencyNanoseconds() }
            // Seen before tick: a short voice may end in this very tick.
            let played = core.takePlayed()
            // The engine's render ticks with what it renders; a device's own mixer is ticked here.
            if out.whoMixes == .device { tick(now: now) }
            settleRampsIfSilent()
            let idleDeadline = core.idleDeadline(now: now, played: played, canPause: out.canPause)
            core.checkArmedAt = nextCheck(out, now: now)
            return .running(next: core.checkArmedAt, idleDeadline: idleDeadline)
        }
    }

    /// When the check is next needed (lock held), nil for "on an event
    /// only" (`AudioCore.nextCheck`): what is left of each voice's buffer is
    /// read from its source.
    func nextCheck(_ out: any AudioOutputDevice, now: Double) -> Double? {
        core.nextCheck(now: now, deviceMixes: out.whoMixes == .device, refresh: out.refresh, lossWatch: lossWatch(out)) { [sources = core.sources] slot, clip in
            AL.secondsLeft(source: sources[slot], frames: clip.format.frames, rate: clip.format.sampleRate)
        }
    }

    /// How often ALC_CONNECTED is read while a voice with no foreseeable end
    /// holds `out` (seconds): only on OpenAL Soft's device without its
    /// disconnect event; nil where the loss is told (lock held).
    func lossWatch(_ out: any AudioOutputDevice) -> Double? {
        guard out.lossIsWatched else { return nil }
        return settings.lossWatchIntervalMilliseconds / 1000
    }

    /// OpenAL Soft's device says it is gone (ALC_CONNECTED), with no device
    /// call in flight: what the idle timer asks before it lets a lost device be.
    var outputGone: Bool {
        locked { output.map { !$0.isConnected && !core.idlePause.callInFlight } ?? false }
    }

    /// The own stream's output waiting for a new stream (lock held); nil
    /// in every other state.
    var lostStreamOutput: (any ReconnectingOutput)? {
        if case .streamLost(let out) = core.outputState { out.reconnection } else { nil }
    }

    /// Takes a device reopened after a loss (loop thread); false when the
    /// engine closed meanwhile (the caller closes `out`).
    func attachReopened(_ out: any AudioOutputDevice, now: Double, buffers: [(Clip, ALuint)]) -> Bool {
        out.start(for: self)
        var kept: (any AudioOutputDevice)?
        let attached = locked { () -> Bool in
            // The own stream's kept mix, when the server came back as none (`auto`).
            if core.outputState.isStreamLost { kept = detach() }
            guard case .none = core.outputState else { return false }
            attach(out, buffers: buffers)
            core.reopenCount += 1
            if out.whoMixes == .device { core.lastTick = now }
            core.lastBusy = now
            return true
        }
        if let kept, let host { host.workers.submit { [self] in closeAfterUploads(kept) } }
        if attached {
            out.prime()
            logger.info("audio output reopened: \(out.name)")
        }
        return attached
    }

    /// Plays the kept mix on `stream` instead of the own stream the
    /// server's loss ended (loop thread). Returns the lost stream, for the
    /// caller to close; nil when the engine closed or no longer waits for a
    /// stream (the caller closes `stream`).
    func replaceLostStream(with stream: PulseStream, now: Double) -> PulseStream? {
        guard let out = locked({ lostStreamOutput }) else { return nil }
        // Before it plays: nothing reaches the new stream until the swap.
        out.connect(stream, to: self)
        let lost = locked { () -> PulseStream? in
            guard case .streamLost(let kept) = core.outputState, kept === out else { return nil }
            core.outputState = .attached(kept)
            core.reopenCount += 1
            core.latencyNs = 0
            core.lastTick = core.renderedSeconds
            core.lastBusy = now
            let lost = out.replaceStream(stream)
            core.openedDeviceName = out.name
            return lost
        }
        if lost != nil {
            stream.prime()
            logger.info("audio output reconnected: \(out.name) (the mix and its clips kept)")
        }
        return lost
    }

    static func monotonicSeconds() -> Double {
        Double(EventLoop.monotonicNow()) / 1e6
    }
}
