import Glibc

/// A call of the loop's C library (or the kernel) failed.
public struct EventLoopError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The C function, such as `sd_event_add_io`.
    public var call: String
    public var errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
}
