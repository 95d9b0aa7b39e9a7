#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `fd` with write(2): no stdio buffering, so a
/// reply reaches the reading process before this one waits or exits.
package func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
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

/// Prints one line to standard error; under journald with the error
/// priority (`<3>`, sd-daemon(3)), which the journal would otherwise not
/// tell from the stream's informational lines.
package func printError(_ text: String) {
    let line = JournalStream.isStandardError
        ? text.split(separator: "\n", omittingEmptySubsequences: false).map { "<3>" + $0 }.joined(separator: "\n")
        : text
    writeAll(2, Array((line + "\n").utf8))
}

/// Ends a one-shot process (`sysound-play`, `sysound-engine request`) once
/// its sound has been heard: stdio flushed, and no exit-time teardown. What
/// it opened needs none (the kernel closes the device nodes and the sound
/// server's connection), and an orderly close of the stream and the
/// connection would add the server's round trips to the process's time
/// after its sound.
package func endOneShot() -> Never {
    fflush(nil)  // every stdio stream
    _exit(0)
}
