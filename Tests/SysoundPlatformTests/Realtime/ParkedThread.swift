import Foundation
import CSysoundShims
import Glibc
import SysoundPlatform

/// A thread that waits until the test ends, with its kernel id: something to make real-time.
final class ParkedThread: @unchecked Sendable {
    private let release = DispatchSemaphore(value: 0)
    private let started = DispatchSemaphore(value: 0)
    private(set) var tid: pid_t = 0
    private var thread: Thread?

    /// `name`: set by the thread itself (pthread_setname_np), as libpulse does; nil keeps its creator's.
    init(name: String? = nil) {
        let t = Thread { [self] in
            if let name { sysound_set_thread_name(name) }
            tid = SchedulerCalls.currentThread()
            started.signal()
            release.wait()
        }
        thread = t
        t.start()
        started.wait()
    }

    func end() { release.signal() }

    /// sched_getscheduler of the thread (SCHED_RESET_ON_FORK included).
    var policy: Int32? { SchedulerCalls.policy(of: tid) }
}
