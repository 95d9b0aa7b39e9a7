import CSysoundShims
import Glibc

/// A wake-up any thread can give a loop without allocating or queueing —
/// a real-time audio thread included, where `EventLoop.post` (a closure
/// appended under a lock) does not belong: an eventfd the loop watches.
/// Rings that come before the loop answers are answered once.
///
/// `ring` from any thread, from creation on (a ring before `watch` is
/// answered once the loop watches); `watch` and `stopWatching` on the loop
/// thread. The descriptor lives as long as the doorbell, so a late ring
/// never reaches a reused descriptor.
package final class Doorbell: @unchecked Sendable {
    // @unchecked: `fd` is immutable; `source` is used on the loop thread only.
    private let fd: Int32
    private var source: EventSource?

    package init() throws(EventLoopError) {
        fd = sysound_eventfd()
        guard fd >= 0 else { throw EventLoopError(call: "eventfd", errno: errno) }
    }

    deinit { Glibc.close(fd) }

    /// Calls `answer` on `loop` after one or more rings (loop thread).
    package func watch(on loop: EventLoop, _ answer: @escaping () -> Void) throws(EventLoopError) {
        let fd = fd
        source = try loop.addIO(fd: fd, events: .readable) { _ in
            var count: UInt64 = 0
            _ = read(fd, &count, 8)
            answer()
        }
    }

    /// Stops answering (loop thread); later rings are ignored.
    package func stopWatching() {
        source?.cancel()
        source = nil
    }

    /// Wakes the loop: one write(2), never waits (the eventfd is non-blocking).
    package func ring() {
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }
}
