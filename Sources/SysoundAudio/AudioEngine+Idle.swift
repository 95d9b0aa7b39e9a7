/// Pausing the output device while nothing plays.
///
/// An open OpenAL Soft device mixes all the time, silence included, and its
/// PulseAudio stream keeps the server mixing too (docs/benchmarks.md, figure 8). After
/// `settings.idlePauseMilliseconds` with no voice, the monitor's one-shot
/// idle timer pauses the device on a worker (ALC_SOFT_pause_device: OpenAL
/// Soft ends its mixer thread and corks the stream); the next `play` starts
/// its voice and has a worker resume the device. Only device outputs pause:
/// OpenAL Soft refuses the extension on loopback devices, whose mixing runs
/// only when `render` asks anyway.
///
/// Neither device call is made under the lock or on the loop: a pause waits
/// for the server to cork the stream, and a resume waits for a pause in
/// flight. A play during a pause only marks its resume owed (`IdlePause`); the worker that
/// paused resumes the device once the pause has returned.
extension AudioEngine {
    /// Whether the output device is paused for idleness now.
    package var isOutputPaused: Bool { locked { core.idlePause.isPaused } }
    /// How many times the device was paused for idleness (each later resumed
    /// by a play, unless it is paused now).
    package var idlePauses: Int { locked { core.pauseCount } }

    /// The idle timer fired (loop thread): when nothing played since and no
    /// device call is in flight, marks the device paused and returns it for
    /// `pauseOnWorker`.
    func beginIdlePause(now: Double) -> (any AudioOutputDevice)? {
        locked { () -> (any AudioOutputDevice)? in
            guard let out = output, core.beginIdlePause(now: now, canPause: out.canPause && out.isConnected) else { return nil }
            return out
        }
    }

    /// Pauses the device (alcDevicePauseSOFT) on a worker, then resumes it at
    /// once if a play came meanwhile. The flags are cleared here, under the
    /// lock, not in a completion on the loop: `shutdown` waits for them, also
    /// after the loop has ended.
    func pauseOnWorker(_ out: any AudioOutputDevice) {
        // A play between the idle timer and this worker (a busy machine can
        // make that milliseconds) started its voice on the running device:
        // then there is nothing to pause, and pausing would cut that voice.
        let go = locked { () -> Bool in
            guard core.idlePause == .pausing(resumeOwed: false), output === out else {
                core.idlePause.pauseReturned()
                core.pauseCount -= 1  // counted when decided; it did not happen
                lock.broadcast()
                return false
            }
            return true
        }
        guard go else { return }
        out.pause()
        let (resume, lost) = locked { () -> (Bool, Bool) in
            let owed = core.idlePause == .pausing(resumeOwed: true) && output === out
            core.idlePause.pauseReturned()
            if owed { core.idlePause = .resuming }
            lock.broadcast()  // shutdown() waits for the pause to end
            // A loss told during the pause was let be (a device call was in
            // flight), and a paused device is not watched: look now.
            return (owed, !owed && output === out && !out.isConnected)
        }
        if resume { resumeOnWorker(out) }
        if lost { monitor?.outputFailed() }
    }

    /// Has a worker resume the device (after the lock is released).
    func resumeLater(_ out: any AudioOutputDevice) {
        guard let host else { return }
        host.workers.submit { [self] in resumeOnWorker(out) }
    }

    /// Resumes the device (alcDeviceResumeSOFT) off the lock; `idlePause` is
    /// `.resuming`. Then, on OpenAL Soft's device, has the monitor check: it finds a
    /// loss while paused (ALC_CONNECTED) and foresees the end of the voice
    /// that asked for the resume. The own stream's render tells that end.
    /// The new mixer goes real-time last: a slow rtkit holds up neither the
    /// monitor nor a pause or close waiting for the resume.
    func resumeOnWorker(_ out: any AudioOutputDevice) {
        let started = out.resume()
        locked {
            core.idlePause.resumeReturned()
            lock.broadcast()
        }
        if out.whoMixes == .device { monitor?.wake() }
        out.promoteResumed(started)
    }
}
