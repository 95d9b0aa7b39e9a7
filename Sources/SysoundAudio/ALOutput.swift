import SysoundCore
import COpenAL
import Foundation
import SysoundRealtime

/// The process-wide lock around OpenAL. OpenAL's current context is global to
/// the process, so every engine takes this lock for its (short) AL calls and
/// makes its own context current if another engine's is.
enum ALLock {
    static let condition = PriorityInheritingCondition()
    /// The context made current last, so a switch costs one call only when needed.
    nonisolated(unsafe) static var current: OpaquePointer?
}

/// ALC_SOFT_loopback's functions, looked up with `alcGetProcAddress`.
struct LoopbackFunctions {
    let open: LPALCLOOPBACKOPENDEVICESOFT
    let isFormatSupported: LPALCISRENDERFORMATSUPPORTEDSOFT
    let render: LPALCRENDERSAMPLESSOFT

    static func load() throws(AudioError) -> LoopbackFunctions {
        guard alcIsExtensionPresent(nil, "ALC_SOFT_loopback") != 0,
              let o = alcGetProcAddress(nil, "alcLoopbackOpenDeviceSOFT"),
              let f = alcGetProcAddress(nil, "alcIsRenderFormatSupportedSOFT"),
              let r = alcGetProcAddress(nil, "alcRenderSamplesSOFT")
        else { throw .missingExtension("ALC_SOFT_loopback") }
        return LoopbackFunctions(
            open: unsafeBitCast(o, to: LPALCLOOPBACKOPENDEVICESOFT.self),
            isFormatSupported: unsafeBitCast(f, to: LPALCISRENDERFORMATSUPPORTEDSOFT.self),
            render: unsafeBitCast(r, to: LPALCRENDERSAMPLESSOFT.self))
    }
}

/// ALC_SOFT_pause_device's functions, looked up with `alcGetProcAddress`:
/// `alcDevicePauseSOFT` stops the backend's mixer (OpenAL Soft's PulseAudio
/// backend joins its mixer thread and corks the stream), `alcDeviceResumeSOFT`
/// starts it again. OpenAL Soft accepts them for playback devices only.
struct PauseFunctions {
    let pause: LPALCDEVICEPAUSESOFT
    let resume: LPALCDEVICERESUMESOFT

    /// The functions, or nil when `device` lacks the extension.
    static func load(for device: OpaquePointer) -> PauseFunctions? {
        guard alcIsExtensionPresent(device, "ALC_SOFT_pause_device") != 0,
              let p = alcGetProcAddress(device, "alcDevicePauseSOFT"),
              let r = alcGetProcAddress(device, "alcDeviceResumeSOFT")
        else { return nil }
        return PauseFunctions(
            pause: unsafeBitCast(p, to: LPALCDEVICEPAUSESOFT.self),
            resume: unsafeBitCast(r, to: LPALCDEVICERESUMESOFT.self))
    }
}

/// ALC_SOFT_device_clock's `alcGetInteger64vSOFT`, looked up with `alcGetProcAddress`.
struct DeviceClockFunctions {
    let getInteger64: LPALCGETINTEGER64VSOFT

    /// The function, or nil when `device` lacks the extension.
    static func load(for device: OpaquePointer) -> DeviceClockFunctions? {
        guard alcIsExtensionPresent(device, "ALC_SOFT_device_clock") != 0,
              let f = alcGetProcAddress(device, "alcGetInteger64vSOFT")
        else { return nil }
        return DeviceClockFunctions(getInteger64: unsafeBitCast(f, to: LPALCGETINTEGER64VSOFT.self))
    }
}

/// One open ALC device with its context: a thin wrapper over alcOpenDevice /
/// alcLoopbackOpenDeviceSOFT, alcCreateContext and alcCloseDevice; or, for
/// the `pulse` output, a loopback device whose mix sysound's own PulseAudio
/// stream (`stream`) renders and writes: the device operations below (pause,
/// resume, connected, latency, close) then act on that stream. Callers hold
/// `ALLock` around every method but the device calls `pause()`, `resume()`
/// and `close()`, which may wait for the sound server.
/// @unchecked Sendable: device outputs move to workers for their device calls;
/// everything else about them is used under `ALLock`.
final class ALOutput: @unchecked Sendable {
    let device: OpaquePointer
    let context: OpaquePointer
    let loopback: LoopbackFunctions?
    /// Present on a device output whose OpenAL has ALC_SOFT_pause_device; nil on loopback.
    let pauseFunctions: PauseFunctions?
    /// Present on a device output whose OpenAL has ALC_SOFT_device_clock; nil on loopback.
    let clockFunctions: DeviceClockFunctions?
    /// sysound's own PulseAudio stream, which renders this loopback device's
    /// mix; nil for OpenAL Soft's device and for a plain loopback.
    let stream: PulseStream?
    /// The opened device's name (ALC_ALL_DEVICES_SPECIFIER, else
    /// ALC_DEVICE_SPECIFIER); with a stream, the sink it plays on now (the
    /// server may move it).
    var name: String { stream?.sinkName ?? deviceName }
    private let deviceName: String
    /// What the device granted (alcGetIntegerv): ALC_FREQUENCY, ALC_REFRESH, source counts.
    let frequency: Int
    let refresh: Int
    let maxSources: Int
    /// Makes the device's audio threads real-time as they start (device outputs; nil: they stay as they are).
    let realtime: RealtimeThreads?

    private init(device: OpaquePointer, context: OpaquePointer, loopback: LoopbackFunctions?, realtime: RealtimeThreads? = nil,
                 stream: PulseStream? = nil) {
        self.device = device
        self.context = context
        self.loopback = loopback
        self.realtime = realtime
        self.stream = stream
        pauseFunctions = loopback == nil ? PauseFunctions.load(for: device) : nil
        clockFunctions = loopback == nil ? DeviceClockFunctions.load(for: device) : nil
        // ALC_ALL_DEVICES_SPECIFIER (ALC_ENUMERATE_ALL_EXT) names the real
        // output (e.g. the PulseAudio sink's description); ALC_DEVICE_SPECIFIER
        // says only "OpenAL Soft" for the default device.
        let all = ALC_ALL_DEVICES_SPECIFIER
        let useAll = alcIsExtensionPresent(nil, "ALC_ENUMERATE_ALL_EXT") != 0
        deviceName = (useAll ? alcGetString(device, all) : nil).map { String(cString: $0) }
            ?? alcGetString(device, ALC_DEVICE_SPECIFIER).map { String(cString: $0) } ?? "unknown device"
        func get(_ p: Int32) -> Int {
            var v: ALCint = 0
            alcGetIntegerv(device, p, 1, &v)
            return Int(v)
        }
        frequency = get(ALC_FREQUENCY)
        refresh = get(ALC_REFRESH)
        maxSources = get(ALC_MONO_SOURCES) + get(ALC_STEREO_SOURCES)
    }

    /// Context attributes shared by both outputs: rate, refresh, sources, and
    /// no HRTF or limiter (UI sounds are not spatialised, and the loopback
    /// render must be the exact sum).
    private static func attributes(_ s: AudioSettings) -> [ALCint] {
        let refresh = max(1, s.sampleRate / max(s.periodFrames, 1))
        return [
            ALC_FREQUENCY, ALCint(s.sampleRate), ALC_REFRESH, ALCint(refresh),
            ALC_MONO_SOURCES, ALCint(s.voices), ALC_STEREO_SOURCES, ALCint(s.voices),
            ALC_HRTF_SOFT, ALC_FALSE, ALC_OUTPUT_LIMITER_SOFT, ALC_FALSE,
        ]
    }

    /// Opens the default output device (`alcOpenDevice(NULL)`) and creates
    /// its context; `realtime` makes the audio threads that started
    /// meanwhile real-time (`AudioThreads`).
    static func openDefault(_ s: AudioSettings, realtime: RealtimeThreads?) throws(AudioError) -> ALOutput {
        // alcCreateContext restarts the mixer and starts the event thread: both calls are watched.
        let (opened, threads) = try AudioThreads.started { () throws(AudioError) -> (OpaquePointer, OpaquePointer) in
            guard let dev = StandardError.silenced({ alcOpenDevice(nil) }) else {
                throw .noOutputDevice(detail: "alcOpenDevice found no default device")
            }
            var attrs = attributes(s)
            attrs.append(0)
            guard let ctx = alcCreateContext(dev, attrs) else {
                let code = alcGetError(dev)
                alcCloseDevice(dev)
                throw .openAL(operation: "alcCreateContext on the default device", code: code)
            }
            return (dev, ctx)
        }
        realtime?.promote(threads, purpose: AudioThreads.openPurpose)
        return ALOutput(device: opened.0, context: opened.1, loopback: nil, realtime: realtime)
    }

    /// Opens the output `s.backend` names for a device engine: sysound's own
    /// PulseAudio stream, or OpenAL Soft's default device; `auto` takes the
    /// stream when a PulseAudio-protocol server answers and OpenAL Soft's
    /// device otherwise (a machine with ALSA only).
    /// `realtime` makes the output's audio threads real-time: OpenAL Soft's,
    /// or the stream's one mainloop thread. `server` is the sound server's
    /// answer when the caller asked it just now (ServiceSetup); nil asks
    /// here, for `auto` only.
    static func openDevice(_ s: AudioSettings, realtime: RealtimeThreads?, server: SoundServerProbe.Answer? = nil) throws(AudioError) -> ALOutput {
        switch s.backend {
        case .openal: return try openDefault(s, realtime: realtime)
        case .pulse: return try openPulse(s, realtime: realtime)
        case .auto:
            if (server ?? SoundServerProbe.ask()) == .absent { return try openDefault(s, realtime: realtime) }
            do { return try openPulse(s, realtime: realtime) } catch {
                if case .pulse = error { return try openDefault(s, realtime: realtime) }
                throw error
            }
        }
    }

    /// A loopback device whose mix sysound's own PulseAudio stream plays.
    static func openPulse(_ s: AudioSettings, realtime: RealtimeThreads?) throws(AudioError) -> ALOutput {
        let mixer = try openLoopback(s)
        let stream: PulseStream
        do { stream = try PulseStream.connect(s, clientName: ProcessInfo.processInfo.processName) } catch {
            mixer.close()
            throw error
        }
        let tid = stream.threadID
        if tid > 0 { realtime?.promote([tid], purpose: "sysound's PulseAudio stream thread (sysound-audio), which mixes and writes") }
        return ALOutput(device: mixer.device, context: mixer.context, loopback: mixer.loopback, realtime: realtime, stream: stream)
    }

    /// Opens a loopback device rendering stereo float32 at the settings' rate
    /// (alcLoopbackOpenDeviceSOFT, alcIsRenderFormatSupportedSOFT).
    static func openLoopback(_ s: AudioSettings) throws(AudioError) -> ALOutput {
        let fns = try LoopbackFunctions.load()
        guard let dev = fns.open(nil) else {
            throw .openAL(operation: "alcLoopbackOpenDeviceSOFT", code: alcGetError(nil))
        }
        guard fns.isFormatSupported(dev, ALCsizei(s.sampleRate), ALC_STEREO_SOFT, ALC_FLOAT_SOFT) != 0 else {
            alcCloseDevice(dev)
            throw .missingExtension("loopback rendering of stereo float32 at \(s.sampleRate) Hz")
        }
        var attrs = attributes(s)
        attrs += [ALC_FORMAT_CHANNELS_SOFT, ALC_STEREO_SOFT, ALC_FORMAT_TYPE_SOFT, ALC_FLOAT_SOFT, 0]
        guard let ctx = alcCreateContext(dev, attrs) else {
            let code = alcGetError(dev)
            alcCloseDevice(dev)
            throw .openAL(operation: "alcCreateContext on the loopback device", code: code)
        }
        return ALOutput(device: dev, context: ctx, loopback: fns)
    }

    /// Makes this context current (alcMakeContextCurrent) unless it already is.
    func makeCurrent() {
        if ALLock.current != context {
            alcMakeContextCurrent(context)
            ALLock.current = context
        }
    }

    /// ALC_CONNECTED (ALC_EXT_disconnect): false once the device is gone for
    /// good; for the stream, false once its context or stream failed.
    var isConnected: Bool {
        if let stream { return stream.isConnected }
        var v: ALCint = 1
        alcGetIntegerv(device, ALC_CONNECTED, 1, &v)
        return v != 0
    }

    /// How long a frame mixed now takes to reach the server's sink, in ns
    /// (alcGetInteger64vSOFT ALC_DEVICE_LATENCY_SOFT); 0 on loopback, without
    /// the extension, or before the server sent timing. OpenAL Soft 1.19's
    /// PulseAudio backend answers with `pa_stream_get_latency` (interpolated:
    /// what is written and not yet played, plus the sink's own latency) under
    /// the device's backend lock and the PulseAudio mainloop lock, which a
    /// pause holds while the server corks: not during a pause or resume.
    /// The stream's answer is its last timing update (`pa_stream_get_latency`),
    /// kept by the stream: asking takes no PulseAudio lock.
    func latencyNanoseconds() -> UInt64 {
        if let stream { return stream.latencyNanoseconds }
        guard let clockFunctions else { return 0 }
        var ns: ALCint64SOFT = 0
        clockFunctions.getInteger64(device, ALC_DEVICE_LATENCY_SOFT, 1, &ns)
        return UInt64(max(ns, 0))
    }

    /// Whether `pause()` does anything: false on loopback or without ALC_SOFT_pause_device.
    var canPause: Bool { stream != nil || pauseFunctions != nil }

    /// Stops the device's mixing (alcDevicePauseSOFT): OpenAL Soft 1.19's
    /// PulseAudio backend joins its mixer thread and waits for the server to
    /// cork the stream. Sources keep their state; nothing is mixed until
    /// `resume()`. Without `ALLock`; the device must stay open meanwhile.
    /// The stream corks instead (it writes nothing while idle already).
    func pause() {
        if let stream { return stream.cork() }
        pauseFunctions?.pause(device)
    }

    /// Starts the device's mixing again after `pause()` (alcDeviceResumeSOFT):
    /// in 1.19 it starts a new mixer thread, which uncorks the stream and
    /// mixes as soon as the server asks for data. It waits on the device's
    /// backend lock, which a pause holds while the server corks: without `ALLock`.
    /// The stream uncorks (a play's kick also does) and starts no thread.
    /// Returns the audio threads it started (the new mixer), for `promoteResumed`.
    @discardableResult
    func resume() -> [pid_t] {
        if let stream {
            stream.uncork()
            return []
        }
        guard let pauseFunctions else { return [] }
        return AudioThreads.started { pauseFunctions.resume(device) }.threads
    }

    /// Makes the threads a resume started real-time, if `realtime` says so:
    /// after the resume is done, since asking rtkit may wait for the bus.
    func promoteResumed(_ threads: [pid_t]) {
        realtime?.promote(threads, purpose: AudioThreads.resumePurpose)
    }

    /// Mixes `frames` stereo float frames into `out` (alcRenderSamplesSOFT).
    func render(into out: UnsafeMutablePointer<Float>, frames: Int) {
        loopback?.render(device, out, ALCsizei(frames))
    }

    /// Makes no context current if this one is (`ALLock` held): before `close()`,
    /// so that a later context at the same address is not taken for current.
    func releaseCurrent() {
        if ALLock.current == context {
            alcMakeContextCurrent(nil)
            ALLock.current = nil
        }
    }

    /// Destroys the context and closes the device (alcDestroyContext, which
    /// stops the backend like a pause, and alcCloseDevice); the stream is
    /// closed first, so that it renders no more. Without `ALLock`, after
    /// `releaseCurrent()`.
    func close() {
        stream?.close()
        alcDestroyContext(context)
        alcCloseDevice(device)
    }
}
