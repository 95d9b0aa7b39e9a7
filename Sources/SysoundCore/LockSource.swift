/// A desktop service the daemon follows for the screen lock (`[session]
/// lock_sources` in the configuration).
package enum LockSource: String, CaseIterable, Sendable {
    /// `LockedHint` of the user's login session, from logind on the system bus.
    case logind
    /// `org.freedesktop.ScreenSaver` and `org.gnome.ScreenSaver` on the session bus.
    case screensaver
}

/// How the lock sources and people share the one `locked` control file: the
/// latest change wins.
///
/// A source writes the file only when its own reading changes (its first
/// reading counts as a change), never to restate a value it already
/// reported. So a person's `sysound lock on` while logind says unlocked stays
/// on until logind's `LockedHint` changes again, and a source that comes back
/// (logind restarted, the screensaver reappeared) with the value it had
/// before overrides nobody.
package struct LockArbiter: Sendable, Equatable {
    private var last: [String: Bool] = [:]

    package init() {}

    /// A reading of `source` (a stable key such as `logind` or a screensaver's
    /// bus name; a logind session switch is the same source). Returns the
    /// value to write to the `locked` file, or nil when nothing changed.
    package mutating func reading(_ locked: Bool, from source: String) -> Bool? {
        guard last[source] != locked else { return nil }
        last[source] = locked
        return locked
    }

    /// The last value `source` reported, if any.
    package func lastReading(of source: String) -> Bool? { last[source] }
}
