#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A dedicated POSIX thread (pthread_create), so the scheduler does not
/// depend on a cooperative pool whose threads may all be busy.
struct EngineThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private let thread: pthread_t

    /// Starts `body` on a new thread; nil if pthread_create fails.
    init?(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body))
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { arg in
            let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
            box.body()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            return nil
        }
        self.thread = thread
    }

    /// Waits for the thread to end (pthread_join).
    func join() {
        pthread_join(thread, nil)
    }
}
