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
