/// Pausing the output device while nothing plays.
///
/// An open OpenAL Soft device mixes all the time, silence included, and its
/// PulseAudio stream keeps the server mixing too (README, figure 8). After
/// `settings.idlePauseMilliseconds` with no voice the monitor thread pauses
/// the device (ALC_SOFT_pause_device: OpenAL Soft ends its mixer thread and
/// corks the stream); the next `play` resumes it before starting its voice.
/// Only device outputs pause: OpenAL Soft refuses the extension on loopback
/// devices, whose mixing runs only when `render` asks anyway.
extension AudioEngine {
    /// Whether the output device is paused for idleness now.
    public var isOutputPaused: Bool { locked { outputPaused } }
    /// How many times the device was paused for idleness (each later resumed
    /// by a play, unless it is paused now).
    public var idlePauses: Int { locked { pauseCount } }

    /// Called by the monitor with the lock held, when no voice is active and
    /// the ramps are settled: once the device has been idle long enough,
    /// marks it paused and returns it for `pause(_:)`, which the monitor calls
    /// after releasing the lock. `busy` says whether a voice played since the
    /// last check.
    func pauseIfIdle(now: Double, busy: Bool) -> ALOutput? {
        if busy { lastBusy = now; return nil }
        let after = settings.idlePauseMilliseconds / 1000
        guard after > 0, !outputPaused, !pausing, let out = output, now - lastBusy >= after else { return nil }
        guard out.canPause else {
            // Loopback or no extension: never try again on this output.
            lastBusy = .infinity
            return nil
        }
        outputPaused = true
        pausing = true
        pauseCount += 1
        return out
    }

    /// Pauses the device (alcDevicePauseSOFT) without the lock: OpenAL Soft's
    /// PulseAudio backend waits there for the server to cork the stream, and
    /// a slow or stopped server must not hold up `play` and every other call.
    /// A `play` meanwhile only clears `outputPaused` (resuming a device in
    /// the middle of pausing would wait for the server too); the device is
    /// resumed here once the pause has returned.
    func pause(_ out: ALOutput) {
        out.pause()
        locked {
            pausing = false
            if !outputPaused && output === out { out.resume() }
            ALLock.condition.broadcast()  // shutdown() waits for the pause to end
        }
    }

    /// Resumes a paused device (alcDeviceResumeSOFT) before a voice starts;
    /// lock held. OpenAL Soft starts its mixer thread and uncorks the stream.
    /// While the monitor's pause is still in flight it resumes the device itself.
    func resumeOutput(_ out: ALOutput) {
        outputPaused = false
        if !pausing { out.resume() }
        monitorWake.signal()  // the monitor's next tick is due now
    }
}
