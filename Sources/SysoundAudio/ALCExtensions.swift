import COpenAL

// The ALC extensions the outputs use, their functions looked up with
// `alcGetProcAddress` (OpenAL Soft exports them only that way).

/// ALC_SOFT_loopback's functions: a device the engine renders itself.
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

/// ALC_SOFT_pause_device's functions: `alcDevicePauseSOFT` stops the
/// backend's mixer (OpenAL Soft's PulseAudio backend joins its mixer thread
/// and corks the stream), `alcDeviceResumeSOFT` starts it again. OpenAL Soft
/// accepts them for playback devices only.
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

/// ALC_SOFT_device_clock's `alcGetInteger64vSOFT`: the device's latency.
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
