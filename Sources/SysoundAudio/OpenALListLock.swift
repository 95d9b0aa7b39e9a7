import SysoundCore

/// The one process-global constraint OpenAL Soft 1.19 puts on its callers
/// once every engine keeps its context current per thread (`ALThreadContext`):
/// its list lock (`ListLock` in Alc/ALc.c), a plain recursive mutex around
/// the list of devices and contexts. `alcRenderSamplesSOFT` takes it on the
/// own stream's real-time thread at every render (VerifyDevice), and
/// `alcSetThreadContext` (VerifyContext), `alcGetIntegerv` and
/// `alcGetString` on a device take it on normal threads. A normal thread
/// preempted while it holds that mutex would stall a real-time render that
/// does not boost it; so every sysound call of these holds this lock
/// (priority-inheriting) around it, and the render boosts the holder. Held only around the one call, never around
/// an engine's state: two engines' renders meet here for at most one
/// render's mix, never for another engine's work. Innermost of the audio
/// locks: nothing is taken while it is held.
///
/// Not held around the calls that may wait long with that mutex held or
/// not (alcOpenDevice, alcCreateContext, alcDestroyContext, alcCloseDevice,
/// alcDevicePauseSOFT, alcDeviceResumeSOFT, ALC_DEVICE_LATENCY_SOFT), which
/// would stop every render while they wait for the sound server.
enum OpenALListLock {
    private static let lock = PthreadLock()

    /// `call` with the lock held.
    static func around<T>(_ call: () -> T) -> T { lock.withLock(call) }
}
