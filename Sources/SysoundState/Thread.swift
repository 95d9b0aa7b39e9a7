#if canImport(Glibc)
import Glibc
#endif
import CSysoundShims

/// Starts a detached POSIX thread (pthread_create) running `body`.
///
/// The service's few long-lived loops (inotify, sockets) each get a thread of
/// their own; this avoids loading Foundation for `Thread` in the CLI.
public func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        let name: String
        init(_ body: @escaping @Sendable () -> Void, _ name: String) { self.body = body; self.name = name }
    }
    let box = Unmanaged.passRetained(Box(body, name)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { context in
        let box = Unmanaged<AnyObject>.fromOpaque(context!).takeRetainedValue() as! Box
        sysound_set_thread_name(box.name)
        box.body()
        return nil
    }, box)
    precondition(result == 0, "pthread_create failed: \(result)")
    pthread_detach(thread)
}
