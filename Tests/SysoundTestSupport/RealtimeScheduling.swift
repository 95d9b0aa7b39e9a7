import Foundation
import SysoundPlatform
#if canImport(XCTest)
import XCTest
#endif

/// Whether this machine lets a thread of the test process become real-time
/// at all: root (as in CI) may, unless the process's cpu cgroup gives
/// real-time tasks no time (`CgroupRealtimeBudget`), as in a container whose
/// cpu controller was set up without it; then neither the direct way nor
/// rtkit (whose grant is the same system call) can work, and a test of
/// real-time threads on the real kernel has nothing to observe.
package enum RealtimeScheduling {
    /// Why sched_setscheduler(SCHED_FIFO) is refused here, or nil when it is
    /// allowed: tried on a thread started for the purpose, which then ends.
    package static func refusal() -> String? {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var refused: Int32 = 0 // an errno; written before `done` is signalled
        let thread = Thread {
            refused = SchedulerCalls.system.setFIFO(SchedulerCalls.currentThread(), 1)
            done.signal()
        }
        thread.start()
        done.wait()
        guard refused != 0 else { return nil }
        let budget = CgroupRealtimeBudget.current().map { "; \($0.file) is \($0.microseconds)" } ?? ""
        return "sched_setscheduler(SCHED_FIFO, 1) on this machine: \(String(cString: strerror(refused)))\(budget)"
    }

    /// Skips the test where real-time scheduling is refused to everyone here (see `refusal()`).
    package static func require() throws {
        guard let reason = refusal() else { return }
        #if canImport(XCTest)
        throw XCTSkip("no real-time scheduling here (\(reason))")
        #else
        throw FixtureError("no real-time scheduling here (\(reason))")
        #endif
    }
}
