import Glibc

/// A call of the loop's C library (or the kernel) failed.
package struct EventLoopError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The C function, such as `sd_event_add_io`.
    package var call: String
    package var errno: Int32

    package init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    package var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
}
