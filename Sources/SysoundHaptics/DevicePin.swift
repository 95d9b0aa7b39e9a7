#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Restricts haptics to chosen devices (config `haptics.devices`). With no
/// pins every qualifying device is used.
package enum DevicePin: Sendable, Equatable, CustomStringConvertible {
    /// A device node or a symlink to one, e.g. `/dev/input/by-path/…-event`.
    case path(String)
    /// A shell pattern on the device name (fnmatch), e.g. `*vibrator*`.
    case name(String)

    /// Text form: an absolute path pins a node, anything else is a name pattern.
    package init(_ text: String) {
        self = text.hasPrefix("/") ? .path(text) : .name(text)
    }

    package var description: String {
        switch self {
        case .path(let p): p
        case .name(let n): n
        }
    }

    /// Whether the device at `path` named `name` is pinned by this pin.
    /// Paths compare after realpath(3), so by-id and by-path symlinks work.
    package func matches(path: String, name: String) -> Bool {
        switch self {
        case .path(let pinned):
            return pinned == path || Self.resolve(pinned) == Self.resolve(path)
        case .name(let pattern):
            return fnmatch(pattern, name, 0) == 0
        }
    }

    private static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
