import Foundation
import CSysoundShims
import Glibc
import SysoundPlatform

/// A thread that waits until the test ends, with its kernel id: something to make real-time.
final class ParkedThread: @unchecked Sendable {
    private let release = DispatchSemaphore(value: 0)
    private let started = DispatchSemaphore(value: 0)
    private let request = DispatchSemaphore(value: 0)
    private let childrenStarted = DispatchSemaphore(value: 0)
    private(set) var tid: pid_t = 0
    private var thread: Thread?
    private var children: [ParkedThread] = []

    /// `name`: set by the thread itself (pthread_setname_np), as libpulse does; nil keeps its creator's.
    /// `count`: how many unnamed parked threads it starts itself when `startChildren` asks.
    init(name: String? = nil, starting count: Int = 0) {
        let t = Thread { [self] in
            if let name { sysound_set_thread_name(name) }
            tid = SchedulerCalls.currentThread()
            started.signal()
            if count > 0 {
                request.wait()
                children = (0..<count).map { _ in ParkedThread() }
                childrenStarted.signal()
            }
            release.wait()
        }
        thread = t
        t.start()
        started.wait()
    }

    /// Has the thread start its `count` threads (born with its name); their ids.
    func startChildren() -> [pid_t] {
        request.signal()
        childrenStarted.wait()
        return children.map(\.tid)
    }

    func end() {
        children.forEach { $0.end() }
        release.signal()
    }

    /// sched_getscheduler of the thread (SCHED_RESET_ON_FORK included).
    var policy: Int32? { SchedulerCalls.policy(of: tid) }
}
