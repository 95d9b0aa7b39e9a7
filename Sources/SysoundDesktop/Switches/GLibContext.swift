import CGio
import Logging
import SysoundPlatform

/// A GLib main context driven by the daemon's sd-event loop, so that
/// GSettings' `changed` signals arrive as events on the loop's thread, in
/// order with socket requests and control-file changes, and nothing polls.
///
/// GSettings delivers its signals on the thread-default context of the
/// thread that created it. This context is acquired and pushed as the loop
/// thread's default for the life of the object, so every GSettings made on
/// the loop thread belongs to it. dconf's backend watches the bus on its own
/// GDBus worker thread and hands changes over with idle sources, which wake
/// the context's eventfd: that fd, the context's only one, is added to the
/// loop, and a wake-up drains the context without blocking.
final class GLibContext {
    let context: OpaquePointer
    private var sources: [EventSource] = []
    private let logger: Logger

    /// Call on the loop's thread (or before the loop runs, on the thread
    /// that will run it).
    init(loop: EventLoop, logger: Logger) throws {
        self.logger = logger
        context = g_main_context_new()
        guard g_main_context_acquire(context) != 0 else {
            g_main_context_unref(context)
            throw DesktopError("cannot acquire a GLib main context for GSettings")
        }
        g_main_context_push_thread_default(context)
        // One prepare–query–check–dispatch cycle: query lists the poll fds
        // (the wake-up eventfd) without waiting.
        var priority: gint = 0
        _ = g_main_context_prepare(context, &priority)
        var timeout: gint = -1
        var fds = [GPollFD](repeating: GPollFD(fd: -1, events: 0, revents: 0), count: 8)
        let count = Int(g_main_context_query(context, priority, &timeout, &fds, gint(fds.count)))
        _ = g_main_context_check(context, priority, &fds, gint(min(count, fds.count)))
        g_main_context_dispatch(context)
        for pollFD in fds.prefix(min(count, fds.count)) where pollFD.fd >= 0 {
            sources.append(try loop.addIO(fd: pollFD.fd, events: .readable) { [unowned self] _ in drain() })
        }
        if sources.isEmpty { logger.warning("the GLib context has no fd to watch; GSettings changes are not followed") }
    }

    /// Runs whatever is ready (GSettings' `changed` signals), never waiting.
    func drain() {
        var rounds = 0
        while g_main_context_iteration(context, 0) != 0 {
            rounds += 1
            if rounds == 1000 { return logger.warning("GLib context: 1000 dispatches in one go; yielding to the loop") }
        }
    }

    /// Call on the loop's thread, after every GSettings of the context is gone.
    func stop() {
        sources.forEach { $0.cancel() }
        sources = []
        drain()
        g_main_context_pop_thread_default(context)
        g_main_context_release(context)
        g_main_context_unref(context)
    }
}

/// A desktop source could not be set up (one log line; the daemon goes on).
struct DesktopError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
