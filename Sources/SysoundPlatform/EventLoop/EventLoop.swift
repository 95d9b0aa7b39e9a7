import CSystemd
import CSysoundShims
import Glibc
import Synchronization
import SysoundCore

/// The process's event loop: one sd-event loop, run by one thread, serving
/// every descriptor, timer, signal and inotify watch of the daemon.
///
/// Everything but `post`, `stop` and `isLoopThread` belongs to the loop
/// thread (sd-event is not thread-safe); other threads hand work to the loop
/// with `post`, which queues it and wakes the loop through an eventfd.
///
/// ```swift
/// let loop = try EventLoop()
/// let source = try loop.addIO(fd: socket, events: .readable) { events in … }
/// try loop.run()   // until loop.exit() or loop.stop()
/// ```
package final class EventLoop: @unchecked Sendable {
    // @unchecked: `event` and the sources are used by the loop thread only
    // (the type's contract); `posted` is locked; `wakeFD` is written by any thread.

    /// The `sd_event*`. Inside the package only, and there for one use:
    /// attaching an sd-bus connection (`Bus.attach(to:)`, which calls
    /// `sd_bus_attach_event`) and the bus tests that run the loop in steps.
    /// Timers and every other source go through the methods below.
    package let event: OpaquePointer
    private let wakeFD: Int32
    private var wakeSource: EventSource?
    private let posted = Locked<Posted>(Posted())

    private struct Posted {
        var work: [@Sendable () -> Void] = []
        /// Set once `run` has returned: what is posted then is dropped at once.
        var finished = false
    }
    /// The thread in `run` (pthread_t), 0 when none: read on every reply, so an atomic.
    private let runner = Atomic<UInt>(0)

    /// `sd_event_new`, plus the eventfd that `post` wakes it with.
    package init() throws(EventLoopError) {
        var event: OpaquePointer?
        try check("sd_event_new", sd_event_new(&event))
        self.event = event!
        wakeFD = sysound_eventfd()
        guard wakeFD >= 0 else {
            let code = errno
            sd_event_unref(self.event)
            throw EventLoopError(call: "eventfd", errno: code)
        }
        do {
            wakeSource = try addIO(fd: wakeFD, events: .readable) { [unowned self] _ in runPosted() }
        } catch {
            Glibc.close(wakeFD)
            sd_event_unref(self.event)
            throw error
        }
    }

    deinit {
        wakeSource?.cancel()
        sd_event_unref(event)
        Glibc.close(wakeFD)
    }

    // MARK: Running

    /// Runs until `exit` (`sd_event_loop`); returns the exit code.
    @discardableResult
    package func run() throws(EventLoopError) -> Int32 {
        runner.store(UInt(pthread_self()), ordering: .releasing)
        defer {
            runner.store(0, ordering: .releasing)
            // Nothing runs any more: release what waits, and what comes later.
            let dropped = posted.withLock { p in
                p.finished = true
                defer { p.work = [] }
                return p.work
            }
            _ = dropped
        }
        return try check("sd_event_loop", sd_event_loop(event))
    }

    /// Runs the loop on a thread of its own (the embedded engine's watchers,
    /// which have no daemon loop to join). Add the first sources before.
    /// Returns once the loop runs, so that from then on `perform` hands work
    /// to that thread instead of running it on the caller's.
    package func runOnThread(name: String) throws(EventLoopError) {
        let started = OnceFlag()
        post { _ = started.claim() }
        // sd_event_loop fails only for a loop already running or freed; a loop
        // that ends shows as `isRunning` false, where `perform` runs work in place.
        try PosixThread.start(name: name) { [self] in _ = try? run() }.detach()
        // Bounded: a loop that fails to start drops the post and never sets it.
        for _ in 0..<20_000 where !started.isSet { usleep(50) }
    }

    /// Ends `run` after the current iteration (loop thread).
    package func exit(code: Int32 = 0) {
        sd_event_exit(event, code)
    }

    /// Ends `run` from any thread.
    package func stop(code: Int32 = 0) {
        post { [self] in exit(code: code) }
    }

    /// Whether a thread is in `run` now. When none is, the loop belongs to
    /// whoever holds it (before `run`, after it returned).
    package var isRunning: Bool {
        runner.load(ordering: .acquiring) != 0
    }

    /// Whether the caller is the thread running the loop now.
    package var isLoopThread: Bool {
        runner.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// Runs `work` on the loop thread soon, in the order posted; from any thread.
    package func post(_ work: @escaping @Sendable () -> Void) {
        let accepted = posted.withLock { p in
            if !p.finished { p.work.append(work) }
            return !p.finished
        }
        guard accepted else { return }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    private func runPosted() {
        var count: UInt64 = 0
        _ = read(wakeFD, &count, 8)
        let work = posted.withLock { p in defer { p.work = [] }; return p.work }
        for item in work { item() }
    }

    /// CLOCK_MONOTONIC in µs, as of this loop iteration (`sd_event_now`).
    package var now: UInt64 {
        var usec: UInt64 = 0
        if sd_event_now(event, CLOCK_MONOTONIC, &usec) < 0 { return Self.monotonicNow() }
        return usec
    }

    /// CLOCK_MONOTONIC in µs, read now.
    package static func monotonicNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }

    // MARK: Sources (loop thread)

    /// Calls `body` with the events seen whenever `fd` is ready (`sd_event_add_io`).
    package func addIO(fd: Int32, events: IOEvents, _ body: @escaping (_ events: IOEvents) -> Void) throws(EventLoopError) -> EventSource {
        let handler = Handler<UInt32> { body(IOEvents(rawValue: $0)) }
        return try adopt("sd_event_add_io", handler) { s, u in sd_event_add_io(event, &s, fd, events.rawValue, ioTrampoline, u) }
    }

    /// Calls `body` once at `deadline` (CLOCK_MONOTONIC, µs), or up to
    /// `accuracy` later (`sd_event_add_time`); `EventSource.schedule` arms it again.
    package func addTimer(
        at deadline: UInt64, accuracy: TimerAccuracy, _ body: @escaping (_ now: UInt64) -> Void
    ) throws(EventLoopError) -> EventSource {
        let handler = Handler<UInt64>(body)
        return try adopt("sd_event_add_time", handler) { s, u in
            sd_event_add_time(event, &s, CLOCK_MONOTONIC, deadline, accuracy.microseconds, timeTrampoline, u)
        }
    }

    /// Calls `body` once, `delay` µs after this loop iteration (`now`), or up to `accuracy` later.
    package func addTimer(
        after delay: UInt64, accuracy: TimerAccuracy, _ body: @escaping (_ now: UInt64) -> Void
    ) throws(EventLoopError) -> EventSource {
        try addTimer(at: now + delay, accuracy: accuracy, body)
    }

    /// Calls `body` once, `delay` µs after this loop iteration, or up to
    /// `accuracy` later, on a timer the loop keeps until it has fired: for
    /// an end nobody cancels (a wait's reply, a voice heard to its end).
    package func addOneShot(
        after delay: UInt64, accuracy: TimerAccuracy, _ body: @escaping () -> Void
    ) throws(EventLoopError) {
        try addHeldTimer(after: delay, accuracy: accuracy, priority: nil, body)
    }

    /// Calls `body` once, at the first iteration that has nothing else to
    /// dispatch: a timer already due, at sd-event's idle priority. Sources
    /// ready now (a connection waiting on the socket, its request) are seen
    /// in the same iteration's poll and dispatched first, and so are those
    /// they add and find ready; `body` runs when none is left. For work a
    /// start defers past the requests that started it (`serve`).
    package func addWhenIdle(_ body: @escaping () -> Void) throws(EventLoopError) {
        try addHeldTimer(after: 0, accuracy: .exact, priority: Int64(SD_EVENT_PRIORITY_IDLE), body)
    }

    /// A one-shot timer the loop keeps until it has fired, at `priority`
    /// (nil: sd-event's default).
    private func addHeldTimer(
        after delay: UInt64, accuracy: TimerAccuracy, priority: Int64?, _ body: @escaping () -> Void
    ) throws(EventLoopError) {
        let holder = OwnedSource()
        let source = try addTimer(after: delay, accuracy: accuracy) { _ in
            // Released here: sd-event frees a source that is dispatching once its handler returns.
            holder.source = nil
            body()
        }
        if let priority {
            _ = try check("sd_event_source_set_priority", sd_event_source_set_priority(source.pointer, priority))
        }
        holder.source = source
    }

    /// Calls `body` every `interval` µs, the first time one interval from
    /// now; each time up to `accuracy` late, counted from when it ran.
    package func addRepeatingTimer(
        every interval: UInt64, accuracy: TimerAccuracy, _ body: @escaping (_ now: UInt64) -> Void
    ) throws(EventLoopError) -> EventSource {
        let holder = SourceHolder()
        let source = try addTimer(at: now + interval, accuracy: accuracy) { now in
            holder.source?.schedule(at: now + interval)
            body(now)
        }
        holder.source = source
        return source
    }

    /// Calls `body` when `signal` arrives (`sd_event_add_signal`, a signalfd).
    /// The signal must be blocked in every thread of the process, or the kernel
    /// delivers it elsewhere: call `EventLoop.blockSignals` before any thread starts.
    package func addSignal(_ signal: Int32, _ body: @escaping (_ signal: Int32) -> Void) throws(EventLoopError) -> EventSource {
        Self.blockSignals([signal])  // at least in this thread, which sd-event requires
        let handler = Handler<Int32>(body)
        return try adopt("sd_event_add_signal", handler) { s, u in sd_event_add_signal(event, &s, signal, signalTrampoline, u) }
    }

    /// Calls `body` for each inotify event on `path` (`sd_event_add_inotify`).
    package func addInotify(path: String, mask: UInt32, _ body: @escaping (InotifyEvent) -> Void) throws(EventLoopError) -> EventSource {
        let handler = Handler<InotifyEvent>(body)
        return try adopt("sd_event_add_inotify", handler) { s, u in sd_event_add_inotify(event, &s, path, mask, inotifyTrampoline, u) }
    }

    /// Adds a source with `add`, handing the handler's ownership to it.
    private func adopt<A>(
        _ call: StaticString, _ handler: Handler<A>,
        _ add: (inout OpaquePointer?, UnsafeMutableRawPointer) -> Int32
    ) throws(EventLoopError) -> EventSource {
        let userdata = handler.retainedPointer
        var source: OpaquePointer?
        let rc = add(&source, userdata)
        guard rc >= 0, let source else {
            Unmanaged<Handler<A>>.fromOpaque(userdata).release()
            throw EventLoopError(call: "\(call)", errno: -rc)
        }
        sd_event_source_set_destroy_callback(source, releaseHandler)
        return EventSource(source)
    }

    // MARK: Signals

    /// Blocks `signals` in the calling thread (`pthread_sigmask`); threads it
    /// starts afterwards inherit the mask. The daemon calls it first thing.
    package static func blockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Unblocks `signals` in the calling thread.
    package static func unblockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
