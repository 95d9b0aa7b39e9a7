#if canImport(Glibc)
import Glibc
#endif
import SysoundCore
import SysoundFeedback

/// The embedded engines of this process, closed when it exits: what the
/// library opened, it closes. An app rarely drops its `SoundService` before
/// `exit`, and a device left open then is cut off mid-sound by the process's
/// end, with OpenAL Soft's `alc_cleanup: 1 device not closed` on the way out.
/// Weak: a service dropped earlier closes its engine itself.
enum EmbeddedEngines {
    private struct Entry: @unchecked Sendable { weak var manager: FeedbackManager? }
    private static let live = Locked<[Entry]>([])
    private static let registered = Locked(false)

    static func closeAtExit(_ manager: FeedbackManager) {
        live.withLock { $0 = $0.filter { $0.manager != nil } + [Entry(manager: manager)] }
        let first = registered.withLock { done in
            defer { done = true }
            return !done
        }
        if first { atexit { EmbeddedEngines.closeAll() } }
    }

    private static func closeAll() {
        let managers = live.withLock { entries in
            defer { entries = [] }
            return entries.compactMap(\.manager)
        }
        // Audio only: a haptic device's effects end when the process's
        // descriptor closes, and its engine's loop is not to be waited on here.
        for manager in managers { manager.shutdownAudio() }
    }
}
