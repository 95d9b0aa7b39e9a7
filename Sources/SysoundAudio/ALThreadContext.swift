import COpenAL

/// ALC_EXT_thread_local_context: each thread makes the context of the engine
/// it works for current for itself (`alcSetThreadContext`), so engines need
/// no process-wide lock for OpenAL's current context, which
/// `alcMakeContextCurrent` would set for the whole process. sysound never
/// calls `alcMakeContextCurrent` (an app's own global context is left be).
///
/// A context stays current on a thread only for the engine's operation
/// (`AudioEngine.locked`, an upload): OpenAL Soft 1.19 counts a thread's
/// context as a reference, so a context left current on an idle thread
/// (the loop, a worker) would keep a closed role's context (7.8 MB) and its
/// device alive, and a thread that ends with one current leaks it
/// (ReleaseThreadCtx only decrements). Setting one costs OpenAL Soft's list
/// lock (`OpenALListLock`); asking and clearing cost none.
enum ALThreadContext {
    private nonisolated(unsafe) static let setThreadContext: PFNALCSETTHREADCONTEXTPROC? = {
        guard alcIsExtensionPresent(nil, "ALC_EXT_thread_local_context") != 0,
              let f = alcGetProcAddress(nil, "alcSetThreadContext")
        else { return nil }
        return unsafeBitCast(f, to: PFNALCSETTHREADCONTEXTPROC.self)
    }()

    private nonisolated(unsafe) static let getThreadContext: PFNALCGETTHREADCONTEXTPROC? = {
        guard alcIsExtensionPresent(nil, "ALC_EXT_thread_local_context") != 0,
              let f = alcGetProcAddress(nil, "alcGetThreadContext")
        else { return nil }
        return unsafeBitCast(f, to: PFNALCGETTHREADCONTEXTPROC.self)
    }()

    /// Whether this OpenAL has the extension (OpenAL Soft has since 1.13);
    /// an engine is not opened without it.
    static var isAvailable: Bool { setThreadContext != nil && getThreadContext != nil }

    /// The context current on this thread only (a thread-local read, no lock).
    static var current: OpaquePointer? { getThreadContext?() }

    /// Makes `context` current on this thread unless it is; false when
    /// OpenAL refused it (or lacks the extension).
    @discardableResult
    static func makeCurrent(_ context: OpaquePointer) -> Bool {
        guard let set = setThreadContext, let get = getThreadContext else { return false }
        if get() == context { return true }
        return OpenALListLock.around { set(context) } != 0
    }

    /// Makes `context` current on this thread again (nil: none), as it was
    /// before an operation; clearing takes no lock in OpenAL Soft.
    static func restore(_ context: OpaquePointer?) {
        guard let set = setThreadContext, let get = getThreadContext, get() != context else { return }
        if context == nil { _ = set(nil) } else { _ = OpenALListLock.around { set(context) } }
    }

    /// Runs `body` with `context` current on this thread, then the one
    /// before (uploads and deletes off the engine's lock).
    static func with<T>(_ context: OpaquePointer, _ body: () throws(AudioError) -> T) throws(AudioError) -> T {
        let previous = current
        guard makeCurrent(context) else { throw .missingExtension("ALC_EXT_thread_local_context") }
        defer { restore(previous) }
        return try body()
    }
}
