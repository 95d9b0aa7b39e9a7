/// Who a caller is, as its sandbox proves it, not as it claims: read from the
/// caller's process (its root's `/.flatpak-info`, its security label), as
/// xdg-desktop-portal decides it.
package enum SandboxIdentity: Sendable, Equatable, CustomStringConvertible {
    /// Not in a sandbox sysound knows: the caller could name any app, and
    /// nothing on the host can tell it otherwise.
    case host
    /// A Flatpak app, by its info file.
    case flatpak(FlatpakInfo)
    /// A confined Snap, by its AppArmor label `snap.NAME.APP`.
    case snap(name: String)
    /// Sandboxed, but who could not be read (an unreadable or malformed info
    /// file, a process gone while it was read): never the host.
    case unknown(reason: String)

    /// The id that decides for this caller: Flatpak's app id, `snap.NAME`
    /// (xdg-desktop-portal's id for a snap); nil for the host (its claimed id
    /// stands) and for an unknown sandbox (no id at all).
    package var verifiedApp: String? {
        switch self {
        case .host, .unknown: nil
        case .flatpak(let info): info.app
        case .snap(let name): "snap." + name
        }
    }

    package var isSandboxed: Bool { self != .host }

    /// Which sandbox, for logs and `status`: flatpak, snap, unknown, host.
    package var kind: String {
        switch self {
        case .host: "host"
        case .flatpak: "flatpak"
        case .snap: "snap"
        case .unknown: "unknown"
        }
    }

    package var description: String {
        switch self {
        case .host: "host"
        case .flatpak(let info): "flatpak \(info.app) (instance \(info.instance))"
        case .snap(let name): "snap \(name)"
        case .unknown(let reason): "sandboxed, unknown (\(reason))"
        }
    }
}
