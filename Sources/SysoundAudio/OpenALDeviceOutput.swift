import COpenAL
import Glibc
import SysoundCore
import SysoundPlatform

/// OpenAL Soft's own output device (`alcOpenDevice(NULL)`): OpenAL Soft's
/// backend mixes and writes to the sound server or ALSA itself.
/// @unchecked Sendable: it moves to workers for its device calls; everything
/// else about it is used under its engine's lock.
final class OpenALDeviceOutput: AudioOutputDevice, @unchecked Sendable {
    let al: ALDeviceContext
    /// Present when OpenAL has ALC_SOFT_pause_device.
    let pauseFunctions: PauseFunctions?
    /// Present when OpenAL has ALC_SOFT_device_clock.
    let clockFunctions: DeviceClockFunctions?
    /// Makes the device's audio threads real-time as they start (nil: they stay as they are).
    let realtime: RealtimeThreads?
    /// OpenAL Soft's disconnect event, once `start(for:)` found it (the engine's lock).
    private var lossEvent: ALDisconnectEvent?

    private init(_ al: ALDeviceContext, realtime: RealtimeThreads?) {
        self.al = al
        self.realtime = realtime
        pauseFunctions = PauseFunctions.load(for: al.device)
        clockFunctions = DeviceClockFunctions.load(for: al.device)
    }

    /// Opens the default output device (`alcOpenDevice(NULL)`) and creates
    /// its context; `realtime` makes the audio threads that started
    /// meanwhile real-time (`AudioThreads`).
    static func open(_ s: AudioSettings, realtime: RealtimeThreads?) throws(AudioError) -> OpenALDeviceOutput {
        guard !AudioProcess.openALMixesOnly else {
            throw .noOutputDevice(detail: "OpenAL Soft's own device is not used by this process: it opened for sysound's own stream only")
        }
        // alcCreateContext restarts the mixer and starts the event thread: both calls are watched.
        let (al, threads) = try AudioThreads.started { () throws(AudioError) -> ALDeviceContext in
            // What it prints of failed probes is quieted once, at its source
            // (AudioProcess), not by redirecting file descriptor 2 meanwhile.
            guard let dev = alcOpenDevice(nil) else {
                throw .noOutputDevice(detail: "alcOpenDevice found no default device")
            }
            return try ALDeviceContext.create(on: dev, ALDeviceContext.attributes(s) + [0], what: "the default device")
        }
        realtime?.promote(threads, purpose: AudioThreads.openPurpose)
        return OpenALDeviceOutput(al, realtime: realtime)
    }

    var name: String { al.name }
    var summary: String { al.grantedSummary }

    /// ALC_CONNECTED (ALC_EXT_disconnect).
    var isConnected: Bool { al.isConnected }

    /// OpenAL Soft's own mixer thread mixes: the engine's monitor foresees ends.
    var whoMixes: OutputMixer { .device }
    var mixForCaller: LoopbackOutput? { nil }

    /// Has OpenAL Soft tell the engine's monitor when it finds the device
    /// gone, paused or not (takes the engine's lock); without the event the monitor
    /// watches ALC_CONNECTED (`lossIsWatched`).
    func start(for engine: AudioEngine) {
        engine.locked {
            al.makeCurrent()
            lossEvent = ALDisconnectEvent.listen { [weak engine] in engine?.monitor?.outputFailed() }
        }
    }

    func prime() {}
    /// The mixer runs all the time the device is not paused: nothing to wake.
    var writer: (any MixWriter)? { nil }
    var isWriting: Bool { false }

    /// The device's latency waits on its backend lock (`latencyNanoseconds`).
    var keepsTiming: Bool { false }
    func untilHeardNanoseconds() -> UInt64 { latencyNanoseconds() }
    /// OpenAL Soft's device keeps its buffer full of mixed silence and says
    /// nothing of what it has played: only its latency tells.
    func drain(timeoutSeconds: Double) -> Bool { false }

    /// Only ALC_CONNECTED, or the disconnect event to the monitor, tells it.
    var hasToldLoss: Bool { false }
    /// Whether OpenAL Soft tells the device's loss as no event (the engine's lock held):
    /// the monitor then watches ALC_CONNECTED while a voice holds the device.
    var lossIsWatched: Bool { lossEvent == nil }
    /// A lost device is closed and opened again whole.
    var reconnection: (any ReconnectingOutput)? { nil }

    /// alcGetInteger64vSOFT ALC_DEVICE_LATENCY_SOFT; 0 without the extension
    /// or before the server sent timing. OpenAL Soft 1.19's PulseAudio
    /// backend answers with `pa_stream_get_latency` (interpolated: what is
    /// written and not yet played, plus the sink's own latency) under the
    /// device's backend lock and the PulseAudio mainloop lock, which a pause
    /// holds while the server corks: not during a pause or resume.
    func latencyNanoseconds() -> UInt64 {
        guard let clockFunctions else { return 0 }
        var ns: ALCint64SOFT = 0
        clockFunctions.getInteger64(al.device, ALC_DEVICE_LATENCY_SOFT, 1, &ns)
        return UInt64(max(ns, 0))
    }

    var canPause: Bool { pauseFunctions != nil }
    /// A worker resumes the device (`resume()`).
    var playEndsPause: Bool { false }

    /// alcDevicePauseSOFT: OpenAL Soft 1.19's PulseAudio backend joins its
    /// mixer thread and waits for the server to cork the stream. Nothing is
    /// mixed until `resume()`.
    func pause() {
        pauseFunctions?.pause(al.device)
    }

    /// alcDeviceResumeSOFT: in 1.19 it starts a new mixer thread, which
    /// uncorks the stream and mixes as soon as the server asks for data. It
    /// waits on the device's backend lock, which a pause holds while the
    /// server corks: without the engine's lock.
    func resume() -> [pid_t] {
        guard let pauseFunctions else { return [] }
        return AudioThreads.started { pauseFunctions.resume(al.device) }.threads
    }

    func promoteResumed(_ threads: [pid_t]) {
        realtime?.promote(threads, purpose: AudioThreads.resumePurpose)
    }

    var streamFacts: StreamFacts? { nil }

    func close() { al.close() }
}
