import COpenAL
import Logging
import SysoundCore
import SysoundEventLoop

/// The watch over a device engine, run by its host's loop: timers only, no
/// thread of its own.
///
/// - The check timer notices ended voices, moves the duck and hush ramps and
///   reads ALC_CONNECTED: every `monitorIntervalMilliseconds` while anything
///   plays or ramps, every `idleMonitorIntervalMilliseconds` when quiet,
///   every `pausedMonitorIntervalMilliseconds` once paused on OpenAL Soft's
///   device (which has no loss event) and not at all once paused on the own
///   stream, whose failure is posted (`outputFailed`). A play that finds it
///   slow or stopped wakes it (`wake`), so a voice's end is seen when it ends.
/// - The idle timer is one-shot, armed by the check that first finds the
///   engine quiet, at the last activity + `idlePauseMilliseconds`; activity
///   since then makes it do nothing, and the next quiet check arms it again.
/// - After a loss the retry timer reopens the device on a worker, backing off
///   to `maxReopenBackoffMilliseconds`; the opened output comes back to the
///   loop and is attached there.
///
/// Loop thread only, but for `start`, `wake` and `stop`, which post to it.
final class AudioMonitor: @unchecked Sendable {
    // @unchecked: every stored property is used on the loop thread only.
    let host: LoopHost
    private let busyInterval: Double, quietInterval: Double, pausedInterval: Double
    private let maxBackoff: Double
    private weak var engine: AudioEngine?
    private var check: EventSource?
    private var idle: EventSource?
    private var retry: EventSource?
    private var backoff = 0.05
    private var stopped = false

    init(host: LoopHost, settings: AudioSettings) {
        self.host = host
        busyInterval = settings.monitorIntervalMilliseconds / 1000
        quietInterval = max(busyInterval, settings.idleMonitorIntervalMilliseconds / 1000)
        pausedInterval = max(quietInterval, settings.pausedMonitorIntervalMilliseconds / 1000)
        maxBackoff = settings.maxReopenBackoffMilliseconds / 1000
    }

    /// Adds the timers on the loop (from any thread; before the loop runs, they
    /// are added when it does).
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
            } catch {
                engine.logger.critical("audio monitor cannot start on its loop: \(error); voice ends and device loss go unnoticed")
            }
        }
    }

    /// Brings the next check to one busy interval from now (a play found the
    /// monitor at a slower interval). From any thread; never waits.
    func wake() {
        if host.loop.isLoopThread {
            wakeNow()
        } else {
            host.loop.post { [self] in wakeNow() }
        }
    }

    /// The output reported its loss (the own stream's failure): checks at
    /// once. From any thread; never waits.
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
            check = nil; idle = nil; retry = nil
        }
    }

    private func wakeNow() {
        guard !stopped, let engine, engine.isConnected else { return }
        check?.schedule(at: EventLoop.monotonicNow() + Self.micros(busyInterval))
    }

    private func checkNow() {
        guard let engine else { return }
        let now = EventLoop.monotonicNow()
        switch engine.monitorCheck(now: Double(now) / 1e6) {
        case .closed:
            return
        case .running(let paused, let quiet, let idleDeadline, let tellsLoss):
            // Paused on an output that reports its own loss (the stream):
            // nothing to look at until a play wakes the check, or the loss
            // does (`outputFailed`). At rest the engine arms no timer.
            if !(paused && tellsLoss) {
                let interval = paused ? pausedInterval : quiet ? quietInterval : busyInterval
                check?.schedule(at: now + Self.micros(interval))
            }
            if let idleDeadline { idle?.schedule(at: UInt64(idleDeadline * 1e6)) }
        case .lost(let gone):
            // Closing a lost device still talks to the server's socket: a worker's job.
            if let gone { host.workers.submit { engine.closeAfterUploads(gone) } }
            backoff = 0.05
            retry?.schedule(at: now)
        }
    }

    private func idleTimeReached() {
        guard let engine, let out = engine.beginIdlePause(now: Double(EventLoop.monotonicNow()) / 1e6) else { return }
        host.workers.submit { engine.pauseOnWorker(out) }
    }

    private func reopen() {
        guard let engine else { return }
        let settings = engine.settings, realtime = engine.realtime, role = engine.role
        engine.locked { engine.reopening = true }
        host.workers.submit({ () -> OpenedOutput in
            // alcOpenDevice waits on the sound server (or its absence): here, not on the loop;
            // and the clips go up into the new context here too, not under the lock on the loop.
            guard let out = try? AudioOutputs.openDevice(settings, role: role, realtime: realtime) else { return OpenedOutput(output: nil, buffers: []) }
            return OpenedOutput(output: out, buffers: engine.uploadClips(into: out))
        }, then: { [self] opened in
            reopened(opened.output, buffers: opened.buffers)
        })
    }

    /// The completion of `reopen`, on the loop.
    private func reopened(_ out: (any AudioOutputDevice)?, buffers: [(Clip, ALuint)]) {
        engine?.locked { engine?.reopening = false }
        guard !stopped, let engine else {
            if let out { host.workers.submit { out.close() } }
            return
        }
        let now = EventLoop.monotonicNow()
        guard let out else {
            retry?.schedule(at: now + Self.micros(backoff))
            backoff = min(backoff * 2, maxBackoff)
            return
        }
        if engine.attachReopened(out, now: Double(now) / 1e6, buffers: buffers) {
            check?.schedule(at: now + Self.micros(busyInterval))
        } else {
            host.workers.submit { out.close() }
        }
    }

    static func micros(_ seconds: Double) -> UInt64 { UInt64(max(seconds, 0) * 1e6) }
}

/// A worker's result: an opened output or none, handed to the loop.
private struct OpenedOutput: @unchecked Sendable {
    // @unchecked: the output is used by one thread at a time (worker, then loop).
    let output: (any AudioOutputDevice)?
    /// The clips' buffers, made in the output's context before it was attached.
    let buffers: [(Clip, ALuint)]
}

/// What the monitor's check found.
enum MonitorStep {
    case closed
    /// The device runs or is paused; `idleDeadline` (monotonic seconds) arms the idle pause.
    /// `tellsLoss`: the output reports its loss as an event (the own stream), else it must be polled.
    case running(paused: Bool, quiet: Bool, idleDeadline: Double?, tellsLoss: Bool)
    /// The device is gone; `gone` (the output detached now, if any) is to be closed.
    case lost(gone: (any AudioOutputDevice)?)
}

extension AudioEngine {
    /// The loop shared by the process's embedded device engines (the library,
    /// the CLI without a daemon, tools, tests): one thread and two workers for
    /// the life of the process, however many engines come and go.
    public static func embeddedHost() throws(AudioError) -> LoopHost {
        do { return try LoopHost.embedded() } catch {
            throw .openAL(operation: "starting the audio loop (\(error))", code: 0)
        }
    }

    /// The monitor's periodic look (loop thread, takes the lock briefly).
    func monitorCheck(now: Double) -> MonitorStep {
        locked { () -> MonitorStep in
            if closed { return .closed }
            guard let out = output else { return .lost(gone: nil) }
            // The server moved the own stream to another sink (PulseStream's moved callback).
            if out.name != openedDeviceName {
                logger.info("audio output now on \(out.name) (was \(openedDeviceName))")
                openedDeviceName = out.name
            }
            // A pause or resume in flight keeps the device open: the loss is handled at a later check.
            if !out.isConnected && !pausing && !resuming {
                logger.warning("audio device \(out.name) disconnected; voices dropped, reopening")
                let gone = detach()
                ALLock.condition.broadcast()
                return .lost(gone: gone)
            }
            // Not while a worker pauses or resumes: the query would wait for its backend lock.
            if !outputPaused && !pausing && !resuming { latencyNs = out.latencyNanoseconds() }
            // Seen before tick: a short voice may end in this very tick.
            let played = playedSinceCheck || pool.voices.contains(where: \.isActive)
            playedSinceCheck = false
            // A stream's clock advances with what it renders, and it ticks there.
            if out.ownStream == nil { tick(now: now) }
            let settled = duckRamp.level == duckRamp.target && hushRamp.level == hushRamp.target
            let quiet = settled && !pool.voices.contains(where: \.isActive)
            if played || !quiet { lastBusy = now }
            monitorAwake = !quiet
            let after = settings.idlePauseMilliseconds / 1000
            let armIdle = quiet && after > 0 && out.canPause && !outputPaused
            return .running(paused: outputPaused, quiet: quiet, idleDeadline: armIdle ? lastBusy + after : nil, tellsLoss: out.ownStream != nil)
        }
    }

    /// Takes a device reopened after a loss (loop thread); false when the
    /// engine closed meanwhile (the caller closes `out`).
    func attachReopened(_ out: any AudioOutputDevice, now: Double, buffers: [(Clip, ALuint)]) -> Bool {
        connectStream(out)
        let attached = locked { () -> Bool in
            if closed || output != nil { return false }
            attach(out, buffers: buffers)
            reopenCount += 1
            if out.ownStream == nil { lastTick = now }
            lastBusy = now
            monitorAwake = true
            return true
        }
        if attached {
            out.ownStream?.prime()
            logger.info("audio output reopened: \(out.name)")
        }
        return attached
    }

    static func monotonicSeconds() -> Double {
        Double(EventLoop.monotonicNow()) / 1e6
    }
}
