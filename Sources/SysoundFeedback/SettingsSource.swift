import SysoundCore
import SysoundState

/// Where a `FeedbackManager` reads the user's settings, and so who tells it
/// that they changed. One path owns each change: with a watcher, every change
/// (another process's or the manager's own write) reaches the manager once,
/// through the watcher; without one, nobody else is looking, so the manager
/// applies what it writes itself.
package enum SettingsSource: Sendable {
    /// Followed with inotify (daemon, library): reading costs nothing, and
    /// the manager's writes are re-read at once with `StateWatcher.refresh`.
    case watched(StateWatcher)
    /// Asked on every request and never followed: the control files read
    /// afresh when inotify is unavailable, or a fixed state (rendering to a
    /// file, benchmarks).
    case read(@Sendable () -> SystemState)

    /// The settings now.
    var current: @Sendable () -> SystemState {
        switch self {
        case .watched(let watcher): { watcher.state }
        case .read(let read): read
        }
    }
}
