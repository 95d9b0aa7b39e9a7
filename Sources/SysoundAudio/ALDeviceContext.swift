import COpenAL
import SysoundCore

/// One open ALC device with its context, and what the device granted: the
/// part every output shares (alcOpenDevice or alcLoopbackOpenDeviceSOFT,
/// alcCreateContext, alcCloseDevice). Callers hold their engine's lock but
/// for `close()`.
struct ALDeviceContext {
    let device: OpaquePointer
    let context: OpaquePointer
    /// The opened device's name (ALC_ALL_DEVICES_SPECIFIER, else ALC_DEVICE_SPECIFIER).
    let name: String
    /// What the device granted (alcGetIntegerv): ALC_FREQUENCY, ALC_REFRESH, source counts.
    let frequency: Int
    let refresh: Int
    let maxSources: Int
    /// What became of the context's unused voices (`ContextVoiceMemory`).
    let voiceMemory: ContextVoiceMemory
    /// What the device granted, for the log line at open.
    var grantedSummary: String { "\(frequency) Hz, refresh \(refresh) Hz" }

    /// Makes a context on `device` (alcCreateContext with `attributes`,
    /// 0-terminated), its unused voices given back where the process asks
    /// for that; on failure closes the device and throws the ALC error.
    static func create(
        on device: OpaquePointer, _ attributes: [ALCint], what: String
    ) throws(AudioError) -> ALDeviceContext {
        guard let context = alcCreateContext(device, attributes) else {
            let code = alcGetError(device)
            alcCloseDevice(device)
            throw .openAL(operation: "alcCreateContext on \(what)", code: code)
        }
        return ALDeviceContext(device: device, context: context, voiceMemory: ContextVoiceMemory.giveBack(of: context))
    }

    private init(device: OpaquePointer, context: OpaquePointer, voiceMemory: ContextVoiceMemory) {
        self.device = device
        self.context = context
        self.voiceMemory = voiceMemory
        // ALC_ALL_DEVICES_SPECIFIER (ALC_ENUMERATE_ALL_EXT) names the real
        // output (e.g. the PulseAudio sink's description); ALC_DEVICE_SPECIFIER
        // says only "OpenAL Soft" for the default device.
        // alcGetString and alcGetIntegerv on a device take OpenAL Soft's list lock.
        let all = ALC_ALL_DEVICES_SPECIFIER
        let useAll = alcIsExtensionPresent(nil, "ALC_ENUMERATE_ALL_EXT") != 0
        name = OpenALListLock.around {
            (useAll ? alcGetString(device, all) : nil).map { String(cString: $0) }
                ?? alcGetString(device, ALC_DEVICE_SPECIFIER).map { String(cString: $0) }
        } ?? "unknown device"
        func get(_ p: Int32) -> Int {
            var v: ALCint = 0
            OpenALListLock.around { alcGetIntegerv(device, p, 1, &v) }
            return Int(v)
        }
        frequency = get(ALC_FREQUENCY)
        refresh = get(ALC_REFRESH)
        maxSources = get(ALC_MONO_SOURCES) + get(ALC_STEREO_SOURCES)
    }

    /// Context attributes shared by every output: rate, refresh, sources, and
    /// no HRTF or limiter (UI sounds are not spatialised, and the loopback
    /// render must be the exact sum), and no auxiliary sends: sysound uses no
    /// effect, and OpenAL Soft 1.19 gives each of its 256 preallocated voices
    /// room for every send (0.76 MB of the context's 8.4 MB at the default 2).
    static func attributes(_ s: AudioSettings) -> [ALCint] {
        let refresh = max(1, s.sampleRate / max(s.periodFrames, 1))
        return [
            ALC_FREQUENCY, ALCint(s.sampleRate), ALC_REFRESH, ALCint(refresh),
            ALC_MONO_SOURCES, ALCint(s.voices), ALC_STEREO_SOURCES, ALCint(s.voices),
            ALC_HRTF_SOFT, ALC_FALSE, ALC_OUTPUT_LIMITER_SOFT, ALC_FALSE,
            maxAuxiliarySends, 0,
        ]
    }

    /// ALC_MAX_AUXILIARY_SENDS (ALC_EXT_EFX's efx.h, which the module does not include).
    static let maxAuxiliarySends: ALCint = 0x20003

    /// ALC_CONNECTED (ALC_EXT_disconnect): false once the device is gone for
    /// good. alcGetIntegerv takes OpenAL Soft's list lock (`OpenALListLock`).
    var isConnected: Bool {
        var v: ALCint = 1
        OpenALListLock.around { alcGetIntegerv(device, ALC_CONNECTED, 1, &v) }
        return v != 0
    }

    /// Makes this context current on the calling thread (`ALThreadContext`)
    /// unless it already is; the engine's `locked` puts back what was.
    func makeCurrent() { ALThreadContext.makeCurrent(context) }

    /// Makes no context current on this thread if this one is: before
    /// `close()`, whose context then has no reference left of this thread.
    func releaseCurrent() {
        if ALThreadContext.current == context { ALThreadContext.restore(nil) }
    }

    /// Destroys the context and closes the device (alcDestroyContext, which
    /// stops the backend like a pause, and alcCloseDevice). Without the
    /// engine's lock, after `releaseCurrent()`.
    func close() {
        alcDestroyContext(context)
        alcCloseDevice(device)
    }
}
