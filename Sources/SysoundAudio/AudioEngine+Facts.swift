/// What the engine can tell about its output, for the daemon's status, tests and the bench.
extension AudioEngine {
    /// The device actually opened (ALC_ALL_DEVICES_SPECIFIER), e.g. the PulseAudio
    /// sink's description, or the sink the own stream plays on now; "OpenAL
    /// Soft" for the loopback output. After a loss, the last one's.
    package var deviceName: String { guarded { output?.name ?? core.openedDeviceName } }
    /// Whether the engine plays through its own PulseAudio stream (`output =
    /// "pulse"`, or `"auto"` with a server) rather than OpenAL Soft's device.
    package var playsOnOwnStream: Bool { streamFacts != nil }
    /// The kernel id of the thread that mixes and writes the stream (libpulse's
    /// mainloop, "sysound-audio"), for making it real-time; nil without a stream.
    package var audioThreadID: Int32? { streamFacts?.threadID }
    /// What the stream has written since it opened, in bytes (stereo float32
    /// frames × 8); nil without a stream.
    package var streamBytesWritten: UInt64? { streamFacts?.bytesWritten }
    /// Plays that woke the stream's thread (its kicks) since it opened; nil without a stream.
    package var streamKicks: Int? { streamFacts?.kicks }
    /// Underflows of the stream while a sound was being written (gaps heard); nil without a stream.
    package var streamUnderflows: Int? { streamFacts?.underflows }
    /// The stream's buffer as the server granted it, in frames; nil without a stream.
    package var streamBuffer: (tlength: Int, minreq: Int, prebuf: Int)? {
        streamFacts?.granted.map { ($0.tlength, $0.minreq, $0.prebuf) }
    }
    /// The own stream's facts now, if the output has one.
    private var streamFacts: StreamFacts? { locked { output?.streamFacts } }
    /// Voices in the pool (the configured count, or fewer if the device gives fewer).
    package var voiceCount: Int { locked { core.pool.count } }
    /// Whether an output device is open (false between a device loss and its return).
    package var isConnected: Bool { locked { if case .attached(let out) = core.outputState { !out.hasToldLoss } else { false } } }
    /// How many times the device was reopened after a loss.
    package var reconnections: Int { locked { core.reopenCount } }
    /// How many times a clip was decoded again from its file to give a new
    /// device its buffer (a reopen of OpenAL Soft's device; never the own
    /// stream's reconnection, whose mix keeps them).
    package var clipReuploads: Int { reuploads.load(ordering: .relaxed) }
    /// How long a sound started now takes to reach the sound server's sink,
    /// in ns: the output latency OpenAL reports (ALC_SOFT_device_clock),
    /// read by the monitor on each check so that asking costs only the lock,
    /// or the own stream's last timing update (kept by the stream).
    /// 0 on loopback, without a device, or before the server sent timing.
    /// A paired haptic starts this much later, so that it is felt when the
    /// sound is heard.
    package var outputLatencyNanoseconds: UInt64 {
        guarded { output.map { $0.keepsTiming ? $0.latencyNanoseconds() : core.latencyNs } ?? 0 }
    }
    /// How long until what the output was given has been heard, in ns: a
    /// voice the engine has just told ended still plays for this long. On
    /// the own stream, what it wrote ahead and the sink's latency
    /// (`PlayoutClock`); on OpenAL Soft's device, its latency; 0 on loopback.
    package var untilHeardNanoseconds: UInt64 {
        locked { output.map { $0.keepsTiming ? $0.untilHeardNanoseconds() : core.latencyNs } ?? 0 }
    }
    /// The mixing rate and refresh (updates per second) the device granted.
    package var grantedFormat: (frequency: Int, refresh: Int) {
        locked { (output?.frequency ?? 0, output?.refresh ?? 0) }
    }
}
