import Foundation
import Glibc
import Logging
import SysoundPlatform
import SysoundTestSupport
import XCTest

/// Where a process's real-time budget is read from, and the log naming it
/// when it is the reason for "Operation not permitted".
final class CgroupRealtimeBudgetTests: XCTestCase {
    let v1Host = """
        12:pids:/
        4:cpu,cpuacct:/system.slice/sysound.service
        1:name=systemd:/system.slice/sysound.service
        0::/system.slice/sysound.service
        """
    let mountsHost = """
        22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw
        30 22 0:26 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:12 - cgroup cgroup rw,cpu,cpuacct
        31 22 0:27 / /sys/fs/cgroup/pids rw,nosuid shared:13 - cgroup cgroup rw,pids
        """

    func files(_ texts: [String: String]) -> (String) -> String? { { texts[$0] } }

    func testTheCpuHierarchysMountAndTheProcesssGroupGiveTheFile() {
        let budget = CgroupRealtimeBudget.current(read: files([
            "/proc/self/cgroup": v1Host, "/proc/self/mountinfo": mountsHost,
            "/sys/fs/cgroup/cpu,cpuacct/system.slice/sysound.service/cpu.rt_runtime_us": "0\n",
        ]))
        XCTAssertEqual(budget, CgroupRealtimeBudget(
            cgroup: "/system.slice/sysound.service",
            file: "/sys/fs/cgroup/cpu,cpuacct/system.slice/sysound.service/cpu.rt_runtime_us", microseconds: 0))
    }

    /// A container sees its own group as the mount's root (mountinfo field 4).
    func testAMountWhoseRootIsTheGroupItselfIsTheGroupsDirectory() {
        let cgroups = "3:cpu:/docker/abc\n"
        let mounts = "40 30 0:26 /docker/abc /sys/fs/cgroup/cpu ro,nosuid - cgroup cgroup rw,cpu\n"
        XCTAssertEqual(CgroupRealtimeBudget.current(read: files([
            "/proc/self/cgroup": cgroups, "/proc/self/mountinfo": mounts,
            "/sys/fs/cgroup/cpu/cpu.rt_runtime_us": "950000",
        ]))?.microseconds, 950_000)
        XCTAssertEqual(CgroupRealtimeBudget.current(read: files([
            "/proc/self/cgroup": "3:cpu:/docker/abc/inner\n", "/proc/self/mountinfo": mounts,
            "/sys/fs/cgroup/cpu/inner/cpu.rt_runtime_us": "0",
        ]))?.file, "/sys/fs/cgroup/cpu/inner/cpu.rt_runtime_us")
    }

    /// cgroup v2 has no such budget; a kernel without group scheduling of
    /// real-time tasks has no file; a group outside the mount is not seen.
    func testNoBudgetWhereThereIsNone() {
        XCTAssertNil(CgroupRealtimeBudget.current(read: files([
            "/proc/self/cgroup": "0::/user.slice\n",
            "/proc/self/mountinfo": "25 22 0:23 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
        ])))
        XCTAssertNil(CgroupRealtimeBudget.current(read: files(["/proc/self/cgroup": v1Host, "/proc/self/mountinfo": mountsHost])))
        XCTAssertNil(CgroupRealtimeBudget.current(read: files([
            "/proc/self/cgroup": "3:cpu:/elsewhere\n",
            "/proc/self/mountinfo": "40 30 0:26 /docker/abc /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n",
        ])))
    }

    /// This machine's own, read for real: a number wherever the file exists.
    func testThisProcesssBudgetIsReadWhereTheKernelHasOne() throws {
        guard let budget = CgroupRealtimeBudget.current() else {
            throw XCTSkip("no cpu.rt_runtime_us for this process (cgroup v2 or no RT group scheduling)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: budget.file), budget.file)
        XCTAssertGreaterThanOrEqual(budget.microseconds, -1)
    }

    /// EPERM with a group of no real-time time: the log says that, not only "not permitted".
    func testTheLogNamesAGroupWithoutRealtimeTime() {
        let log = LogCapture()
        let budget = CgroupRealtimeBudget(cgroup: "/ci/job", file: "/sys/fs/cgroup/cpu/ci/job/cpu.rt_runtime_us", microseconds: 0)
        let calls = SchedulerCalls(setFIFO: { _, _ in EPERM }, realtimeLimit: { (100_000, 100_000) }, setRealtimeLimit: { _ in 0 },
                                   realtimeBudget: { budget })
        let rt = RealtimeThreads(priority: 4, broker: nil, calls: calls, logger: log.logger)
        XCTAssertEqual(rt.promote([7], purpose: "mixer"), .normal(reasons: [
            "sched_setscheduler(SCHED_FIFO, 4): Operation not permitted (cpu cgroup /ci/job gives real-time no time: /sys/fs/cgroup/cpu/ci/job/cpu.rt_runtime_us is 0)",
            "no rtkit to ask",
        ]))
        let withTime = SchedulerCalls(setFIFO: { _, _ in EPERM }, realtimeLimit: { (100_000, 100_000) }, setRealtimeLimit: { _ in 0 },
                                      realtimeBudget: { CgroupRealtimeBudget(cgroup: "/", file: "/x", microseconds: 950_000) })
        XCTAssertEqual(RealtimeThreads(priority: 4, broker: nil, calls: withTime, logger: log.logger).promote([7], purpose: "mixer"),
                       .normal(reasons: ["sched_setscheduler(SCHED_FIFO, 4): Operation not permitted", "no rtkit to ask"]),
                       "a group with time is not the reason")
    }
}
