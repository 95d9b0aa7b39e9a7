#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Properties udev recorded for a device node: its database file
/// (`/run/udev/data/c<major>:<minor>`) holds one `E:KEY=value` line per
/// property. Read directly, not through libudev: one small file, and the
/// daemon need not link libudev for it.
public enum UdevProperties {
    /// The value of `key` for the character device `device` (st_rdev), nil
    /// when udev has no record of it (no udev, or rules that do not set it).
    public static func value(of key: String, directory: String, device: UInt64) -> String? {
        // glibc's major()/minor() are macros Swift does not import: the same split.
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        guard let text = read("\(directory)/c\(major):\(minor)") else { return nil }
        let prefix = "E:\(key)="
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            return String(line.dropFirst(prefix.count))
        }
        return nil
    }

    /// A small file's text, nil if it cannot be read.
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = Glibc.read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
