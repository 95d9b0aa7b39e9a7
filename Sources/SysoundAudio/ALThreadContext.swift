import COpenAL

/// ALC_EXT_thread_local_context's `alcSetThreadContext`: a context current
/// for the calling thread only. Uploads use it to fill AL buffers without
/// `ALLock` — the lock the render takes — so a big theme never stalls the
/// mix (OpenAL Soft guards its buffer list with a lock of its own, which the
/// mixer does not take).
///
/// Only the two `alcSetThreadContext` calls take `ALLock`, for microseconds:
/// OpenAL Soft 1.19 checks the context there under its global list lock, a
/// plain mutex that `alcRenderSamplesSOFT` also takes (VerifyDevice) on the
/// real-time stream thread. An upload worker of normal priority preempted
/// while holding it would stall the render; under `ALLock`, which inherits
/// priority and which the render holds while it mixes, the two never meet
/// at the list lock.
enum ALThreadContext {
    private nonisolated(unsafe) static let setThreadContext: PFNALCSETTHREADCONTEXTPROC? = {
        guard alcIsExtensionPresent(nil, "ALC_EXT_thread_local_context") != 0,
              let f = alcGetProcAddress(nil, "alcSetThreadContext")
        else { return nil }
        return unsafeBitCast(f, to: PFNALCSETTHREADCONTEXTPROC.self)
    }()

    /// Whether this OpenAL has the extension (OpenAL Soft has since 1.13).
    static var isAvailable: Bool { setThreadContext != nil }

    /// Runs `body` with `context` current on this thread, then none.
    static func with<T>(_ context: OpaquePointer, _ body: () throws(AudioError) -> T) throws(AudioError) -> T {
        guard let set = setThreadContext, underALLock({ set(context) }) != 0 else {
            throw .missingExtension("ALC_EXT_thread_local_context")
        }
        defer { _ = underALLock { set(nil) } }
        return try body()
    }

    /// `call` with `ALLock` held; never from a thread that holds it.
    private static func underALLock(_ call: () -> ALCboolean) -> ALCboolean {
        ALLock.condition.lock()
        defer { ALLock.condition.unlock() }
        return call()
    }
}
