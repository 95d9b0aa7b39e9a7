#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few file calls the LED layer makes, behind a protocol so that tests
/// run it on a directory tree shaped like sysfs and udev's database.
/// Everything the layer reads or writes is a small text attribute.
package protocol LedFiles: Sendable {
    /// The entries of a directory (no `.`, `..`), sorted; nil when it cannot be read.
    func names(in directory: String) -> [String]?
    /// A small file's text, nil when it cannot be read.
    func read(_ path: String) -> String?
    /// Writes `text` with one write(2), as sysfs attributes want it.
    func write(_ path: String, _ text: String) throws(LedWriteError)
    func exists(_ path: String) -> Bool
    /// Whether this process may write the file (access(2) W_OK).
    func isWritable(_ path: String) -> Bool
}

/// A write the kernel (or the file system) refused.
package struct LedWriteError: Error, Equatable, Sendable, CustomStringConvertible {
    package var path: String
    package var errno: Int32

    package init(path: String, errno: Int32) {
        self.path = path
        self.errno = errno
    }

    package var description: String {
        let why = String(cString: strerror(errno))
        if errno == EACCES || errno == EPERM {
            return "cannot write \(path): \(why); the udev rules of sysound (sysound-ledctrl) give the group \"feedbackd\" access, and the user must be in it"
        }
        return "cannot write \(path): \(why)"
    }
}

/// Where sysfs's LED class and udev's database are; `root` is "" on a real
/// system and a temporary directory in tests.
package struct LedPaths: Sendable, Equatable {
    package var root: String

    package init(root: String = "") { self.root = root }

    package var classDirectory: String { root + "/sys/class/leds" }
    package var udevDatabase: String { root + "/run/udev/data" }

    package func led(_ name: String) -> String { classDirectory + "/" + name }
    package func attribute(_ name: String, _ attribute: String) -> String { led(name) + "/" + attribute }
    /// udev's record of an LED class device: `+leds:NAME`.
    package func udevRecord(_ name: String) -> String { udevDatabase + "/+leds:" + name }
}

/// The real file system.
package struct SystemLedFiles: LedFiles {
    package init() {}

    package func names(in directory: String) -> [String]? {
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    package func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        // sysfs attributes are at most a page; udev's records of an LED are small.
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    package func write(_ path: String, _ text: String) throws(LedWriteError) {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw LedWriteError(path: path, errno: errno) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw LedWriteError(path: path, errno: written < 0 ? errno : EIO) }
    }

    package func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    package func isWritable(_ path: String) -> Bool { access(path, W_OK) == 0 }
}
