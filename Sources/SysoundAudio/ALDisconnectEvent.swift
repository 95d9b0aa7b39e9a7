import COpenAL

/// OpenAL Soft's word that its device is gone, as an event: AL_SOFT_events'
/// disconnect event (1.19 has it as the experimental AL_SOFTX_events, with
/// other enum values). OpenAL Soft posts it where it notices the loss — its
/// PulseAudio backend's mainloop, also while the device is paused — and its
/// event thread, which sleeps until then, calls `told`. Without the
/// extension nothing tells: a play finds the loss (ALC_CONNECTED).
///
/// Lives as long as the context it listens in: the context's destruction
/// ends the event thread, then this may go (`OpenALDeviceOutput` holds it).
final class ALDisconnectEvent: @unchecked Sendable {
    // @unchecked: `told` is immutable and Sendable; nothing else is stored.
    private let told: @Sendable () -> Void

    private init(_ told: @escaping @Sendable () -> Void) { self.told = told }

    typealias Proc = @convention(c) (ALenum, ALuint, ALuint, ALsizei, UnsafePointer<ALchar>?, UnsafeMutableRawPointer?) -> Void
    typealias Control = @convention(c) (ALsizei, UnsafePointer<ALenum>?, ALboolean) -> Void
    typealias Callback = @convention(c) (Proc?, UnsafeMutableRawPointer?) -> Void

    /// The disconnect event's value: AL_SOFT_events (1.20 on), else 1.19's AL_SOFTX_events.
    private static func disconnectType() -> ALenum? {
        if alIsExtensionPresent("AL_SOFT_events") != 0 { return 0x19A6 }
        if alIsExtensionPresent("AL_SOFTX_events") != 0 { return 0x1227 }
        return nil
    }

    /// Asks the current context (the engine's lock held, the output's context made
    /// current) for its disconnect event; nil when OpenAL has no events.
    static func listen(_ told: @escaping @Sendable () -> Void) -> ALDisconnectEvent? {
        guard let type = disconnectType(),
              let c = alGetProcAddress("alEventCallbackSOFT"), let e = alGetProcAddress("alEventControlSOFT")
        else { return nil }
        let listener = ALDisconnectEvent(told)
        let callback = unsafeBitCast(c, to: Callback.self), control = unsafeBitCast(e, to: Control.self)
        callback({ _, _, _, _, _, me in
            // OpenAL Soft's event thread: pass the news on, call no AL function.
            guard let me else { return }
            Unmanaged<ALDisconnectEvent>.fromOpaque(me).takeUnretainedValue().told()
        }, Unmanaged.passUnretained(listener).toOpaque())
        var types = [type]
        control(1, &types, ALboolean(AL_TRUE))
        return alGetError() == AL_NO_ERROR ? listener : nil
    }
}
