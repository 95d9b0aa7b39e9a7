import Foundation
import CSysoundShims
import Glibc
import SysoundPlatform

/// A thread that waits until the test ends, with its kernel id: something to make real-time.
final class ParkedThread: @unchecked Sendable {
    private let release = DispatchSemaphore(value: 0)
    private let started = DispatchSemaphore(value: 0)
    private let request = DispatchSemaphore(value: 0)
    private let childStarted = DispatchSemaphore(value: 0)
    private(set) var tid: pid_t = 0
    private var thread: Thread?
    private var child: ParkedThread?

    /// `name`: set by the thread itself (pthread_setname_np), as libpulse does; nil keeps its creator's.
    /// `startsAChild`: it starts an unnamed parked thread itself when `startChild` asks.
    init(name: String? = nil, startsAChild: Bool = false) {
        let t = Thread { [self] in
            if let name { sysound_set_thread_name(name) }
            tid = SchedulerCalls.currentThread()
            started.signal()
            if startsAChild {
                request.wait()
                child = ParkedThread()
                childStarted.signal()
            }
            release.wait()
        }
        thread = t
        t.start()
        started.wait()
    }

    /// Has the thread start its child (born with its name); the child's id.
    func startChild() -> pid_t {
        request.signal()
        childStarted.wait()
        return child!.tid
    }

    func end() {
        child?.end()
        release.signal()
    }

    /// sched_getscheduler of the thread (SCHED_RESET_ON_FORK included).
    var policy: Int32? { SchedulerCalls.policy(of: tid) }
}
