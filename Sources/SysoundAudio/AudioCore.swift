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
