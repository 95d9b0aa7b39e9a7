import SysoundCore
import Glibc

/// How the audio engine is set up: the one type of the `[audio]` table, made
/// by the configuration parser and taken by the engine. Its defaults are the
/// only ones (the shipped `config/sysound.toml` and `sysound.toml(5)` are
/// checked against them by tests). They are the measured trade-off of
/// docs/latency.md: sysound's own PulseAudio stream where
/// a server answers (a new sound reaches the sink in 0.3 ms instead of 5, and
/// it stayed whole with both cores busy); 96-frame periods × 4 at 48 kHz, which
/// on OpenAL Soft's own device played without a gap once the client's threads
/// ran real-time (two periods underran even then) and which pipewire-pulse
/// grants in whole periods, against the CPU of OpenAL Soft's running device
/// (about 3 % of a core at 96 × 4 on the 2-core CI machine, docs/benchmarks.md
/// figure 8), which the idle pause removes while nothing plays (0.06 %).
package struct AudioSettings: Sendable, Equatable {
    /// What a device engine plays through: sysound's own PulseAudio stream
    /// (written only while a sound plays), OpenAL Soft's own device, or
    /// `auto` (the stream when a PulseAudio-protocol server answers).
    package var backend: AudioBackend = .auto
    /// Number of sources in the voice pool (never more than the device gives).
    package var voices: Int = 32
    /// The daemon's audio threads run SCHED_FIFO at this priority (through
    /// rtkit SCHED_RR, at most rtkit's maximum); 0 leaves them at normal priority.
    package var realtimePriority: Int = 4
    /// Output sample rate in Hz (ALC_FREQUENCY).
    package var sampleRate: Int = 48_000
    /// Mixing period in frames (OpenAL Soft `period_size`; ALC_REFRESH = rate /
    /// period); on the own stream, its `minreq` and prebuffer (PulseStream.Request).
    package var periodFrames: Int = 96
    /// Periods in the device buffer (OpenAL Soft `periods`); on the own stream,
    /// `tlength` = periods × period.
    package var periods: Int = 4
    /// Whether the engine may write a private OpenAL Soft config (ALSOFT_CONF) so
    /// the period settings apply; OpenAL Soft 1.19 ignores ALC_REFRESH for them.
    /// Never for `pulse`, whose loopback device reads none of it (AlsoftConfig).
    package var writeAlsoftConfig: Bool = true
    /// Longest clip accepted, in seconds (iOS's System Sound Services allow 30).
    package var maxClipSeconds: Double = 30
    /// Budget for all preloaded (theme) PCM, in the bytes its AL buffers hold
    /// (as the files hold it: 16-bit or float32, mono or stereo).
    package var maxPreloadBytes: Int = 64 << 20
    /// Budget for the ad-hoc (`play --file`) cache, in the bytes its AL buffers
    /// hold; least recently used evicted.
    package var maxCacheBytes: Int = 32 << 20
    /// Most ad-hoc files kept decoded at once.
    package var maxCachedFiles: Int = 16
    /// How much a ducking voice lowers the others, in dB (negative).
    package var duckDecibels: Double = -12
    /// Duration of the ducking and hushing ramps, in milliseconds.
    package var rampMilliseconds: Double = 50
    /// The step of the duck and hush ramps on OpenAL Soft's device, whose
    /// levels the monitor's check (a timer on the engine's loop) moves, in
    /// milliseconds; also the loopback render's tick, which ends voices and
    /// moves the ramps on the own stream and in `render`.
    package var monitorIntervalMilliseconds: Double = 5
    /// How often the check reads ALC_CONNECTED on OpenAL Soft's running
    /// device while a voice whose end cannot be foreseen holds it (a loop, a
    /// voice paused by an interruption), where OpenAL has no disconnect event
    /// (AL_SOFT_events; 1.19's AL_SOFTX_events has it, so this is unused
    /// there). A voice that ends is checked at its foreseen end instead, and
    /// a quiet or paused device not at all (a play finds a loss).
    package var lossWatchIntervalMilliseconds: Double = 20
    /// After this long with no voice playing the engine pauses its output
    /// device (alcDevicePauseSOFT), so neither OpenAL Soft nor the sound server
    /// mixes silence; the next `play` starts its voice and has a worker
    /// resume the device. The own stream, which writes nothing while idle
    /// anyway, is corked (so the server may suspend an idle sink) and the
    /// next play's write uncorks it. 0 never pauses. Measured (docs/latency.md,
    /// "The own stream"; docs/benchmarks.md, figure 2): that sound reaches the sink no later than on a running device;
    /// 1 s keeps bursts (typing, scrolling) on a running device.
    package var idlePauseMilliseconds: Double = 1_000
    /// After this long with nothing played on it, a media role's engine other
    /// than the event role's (its stream, its OpenAL Soft context, its
    /// thread and sound-server client) is closed; the role's next sound opens
    /// it again. 0 keeps it open. The event engine is never released.
    package var roleReleaseSeconds: Double = 60
    /// Longest wait between attempts to reopen a lost device, in milliseconds.
    package var maxReopenBackoffMilliseconds: Double = 2_000

    package init() {}

    package static let defaults = AudioSettings()

    /// Linear gain of the duck (−12 dB ≈ 0.251).
    package var duckGain: Float {
        Float(pow(10, min(duckDecibels, 0) / 20))
    }

    /// The expected output latency in milliseconds: `periodFrames × periods / sampleRate`.
    package var latencyMs: Double { Double(periodFrames * periods) * 1000 / Double(sampleRate) }
}
