import COpenAL

/// ALC_EXT_thread_local_context's `alcSetThreadContext`: a context current
/// for the calling thread only. Uploads use it to fill AL buffers without
/// `ALLock` — the lock the render takes — so a big theme never stalls the
/// mix (OpenAL Soft guards its buffer list with a lock of its own, which the
/// mixer does not take).
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
        guard let set = setThreadContext, set(context) != 0 else {
            throw .missingExtension("ALC_EXT_thread_local_context")
        }
        defer { _ = set(nil) }
        return try body()
    }
}
