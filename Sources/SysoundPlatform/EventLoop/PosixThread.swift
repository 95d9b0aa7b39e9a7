import CSysoundShims
import Glibc

/// Starts POSIX threads (pthread_create): the loop's own thread, the
/// worker pool's, and the short-lived one that connects a stream while its
/// mixer opens (`StreamOutput.open`): the only threads the daemon makes.
package struct PosixThread: Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        let name: String
        init(_ run: @escaping @Sendable () -> Void, _ name: String) { self.run = run; self.name = name }
    }

    private let thread: pthread_t

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept).
    @discardableResult
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(EventLoopError) -> PosixThread {
        let box = Unmanaged.passRetained(Body(body, name))
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { arg in
            let body = Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue()
            sysound_set_thread_name(body.name)
            body.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            throw EventLoopError(call: "pthread_create", errno: rc)
        }
        return PosixThread(thread: thread)
    }

    /// Lets the thread end on its own (pthread_detach); do not join it then.
    package func detach() {
        pthread_detach(thread)
    }

    /// Waits for the thread to end (pthread_join).
    package func join() {
        pthread_join(thread, nil)
    }
}

/// A value computed on a thread of its own, for its starter to wait for
/// (`pthread_join`): work that overlaps what the starter does meanwhile (a
/// stream's connection beside its mixer's context, a one-shot's mixer beside
/// its theme).
package final class ThreadedWork<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is written by the thread before it ends and read after `join`;
    // `wait` is called once, by the starter.
    private var value: Value?
    private var thread: PosixThread?

    /// Starts `body` on a thread named `name`; nil when no thread can be
    /// started (EAGAIN): the caller does the work itself then.
    package init?(name: String, _ body: @escaping @Sendable () -> Value) {
        thread = try? PosixThread.start(name: name) { [self] in value = body() }
        if thread == nil { return nil }
    }

    /// Waits for the thread to end and returns what it computed.
    package func wait() -> Value {
        if let thread {
            thread.join()
            self.thread = nil
        }
        return value!
    }
}
