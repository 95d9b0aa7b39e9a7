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
    /// the ramps are settled: pauses the device once it has been idle long
    /// enough. `busy` says whether a voice played since the last check.
    func pauseIfIdle(now: Double, busy: Bool) {
        if busy { lastBusy = now; return }
        let after = settings.idlePauseMilliseconds / 1000
        guard after > 0, !outputPaused, let out = output, now - lastBusy >= after else { return }
        if out.pause() {
            outputPaused = true
            pauseCount += 1
        } else {
            // Loopback or no extension: never try again on this output.
            lastBusy = .infinity
        }
    }

    /// Resumes a paused device (alcDeviceResumeSOFT) before a voice starts;
    /// lock held. OpenAL Soft starts its mixer thread and uncorks the stream.
    func resumeOutput(_ out: ALOutput) {
        out.resume()
        outputPaused = false
    }
}
