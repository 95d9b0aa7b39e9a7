import SysoundCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Properties udev recorded for a device node: its database file
/// (`/run/udev/data/c<major>:<minor>`) holds one `E:KEY=value` line per
/// property. Read directly, not through libudev: one small file, and the
/// daemon need not link libudev for it.
package enum UdevProperties {
    /// The value of `key` for the character device `device` (st_rdev), nil
    /// when udev has no record of it (no udev, or rules that do not set it).
    package static func value(of key: String, directory: String, device: UInt64) -> String? {
        // glibc's major()/minor() are macros Swift does not import: the same split.
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        guard let text = SmallFile.read("\(directory)/c\(major):\(minor)") else { return nil }
        let prefix = "E:\(key)="
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            return String(line.dropFirst(prefix.count))
        }
        return nil
    }
}
