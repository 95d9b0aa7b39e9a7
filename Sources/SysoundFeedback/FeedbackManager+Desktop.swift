import SysoundConfig
import SysoundCore

/// The desktop's own switches (GNOME, Plasma, feedbackd's settings), as the
/// daemon's desktop sources report them (Sources/SysoundDesktop). They are
/// inputs of the policy beside the control files; the embedded engine and
/// the library follow none and decide with `DesktopState.defaults`.
extension FeedbackManager {
    /// The desktop's switches now.
    package var desktop: DesktopState { desktopState.withLock { $0 } }

    /// Replaces the desktop's switches; the next request is decided under
    /// them. Playing voices are left alone: do not disturb and the sound
    /// switches are about what starts, as GNOME Shell treats them.
    package func setDesktop(_ new: DesktopState) {
        let old = desktopState.withLock { d in defer { d = new }; return d }
        if old.preferFlash != new.preferFlash { leds?.setPreferFlash(new.preferFlash) }
    }

    /// Picks the XDG sound theme of the fallback (GNOME's `theme-name`,
    /// GNOME Settings' `__custom` included); nil goes back to the
    /// configuration's `[xdg] theme`. Kept across reloads.
    package func setXDGTheme(_ name: String?) {
        desktopXDGTheme.withLock { $0 = name }
        setup.withLock { s in s = Setup(configuration: s.configuration, theme: Self.theme(s.theme, withXDGTheme: name ?? s.configuration.xdg.theme)) }
    }

    /// The XDG fallback theme requests are resolved with now (nil: no fallback).
    package var xdgTheme: String? { theme.xdg?.theme }

    static func theme(_ theme: Theme, withXDGTheme name: String?) -> Theme {
        guard let name, var xdg = theme.xdg, xdg.theme != name else { return theme }
        var theme = theme
        xdg.theme = name
        theme.xdg = xdg
        return theme
    }

    /// Calls `handler` (on the thread that handles the request) the first
    /// time an app id asks for feedback, before its request is decided.
    package func onNewApp(_ handler: @escaping @Sendable (String) -> Void) {
        newAppHandler.withLock { $0 = handler }
    }
}
