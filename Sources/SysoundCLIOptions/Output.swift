#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `fd` with write(2): no stdio buffering, so a
/// reply reaches the reading process before this one waits or exits.
public func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n > 0 {
            offset += n
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}

/// Prints one line to standard error.
public func printError(_ text: String) {
    writeAll(2, Array((text + "\n").utf8))
}
