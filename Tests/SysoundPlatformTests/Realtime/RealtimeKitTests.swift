import Glibc
import Logging
import SysoundPlatform
import SysoundTestSupport
import XCTest

/// The two ways on the real kernel: sched_setscheduler directly (root in CI),
/// and rtkit (Tests/fixture/rtkit-mock.py on the private system bus, which
/// checks rtkit's rules and calls sched_setscheduler itself), with the direct
/// way made to fail; the thread's policy is read back from the kernel.
final class RealtimeKitTests: XCTestCase {
    let fifo = SCHED_FIFO | 0x4000_0000 // | SCHED_RESET_ON_FORK
    let rr = SCHED_RR | 0x4000_0000

    /// The kernel's calls with sched_setscheduler refused, as for a plain user without RLIMIT_RTPRIO.
    var plainUser: SchedulerCalls {
        var calls = SchedulerCalls.system
        calls.setFIFO = { _, _ in EPERM }
        calls.realtimeBudget = { nil } // the refusal is this test's, not the machine's cgroup
        return calls
    }

    override func tearDown() {
        try? SessionMock.stop(.rtkit)
        super.tearDown()
    }

    /// The direct way needs CAP_SYS_NICE (root, as in CI) or an RLIMIT_RTPRIO.
    func testTheDirectWayMakesTheThreadFIFO() throws {
        try RealtimeScheduling.require()
        let thread = ParkedThread()
        defer { thread.end() }
        XCTAssertEqual(thread.policy, SCHED_OTHER)
        let rt = RealtimeThreads(priority: 3, broker: nil, logger: LogCapture().logger)
        XCTAssertEqual(rt.promote([thread.tid], purpose: "test"), .direct(priority: 3))
        XCTAssertEqual(thread.policy, fifo, "SCHED_FIFO | SCHED_RESET_ON_FORK")
        XCTAssertEqual(SchedulerCalls.priority(of: thread.tid), 3)
        XCTAssertLessThanOrEqual(SchedulerCalls.system.realtimeLimit().hard, 200_000, "RLIMIT_RTTIME set")
    }

    func testRtkitMakesTheThreadRealtimeWhenTheProcessMayNot() throws {
        try SessionMock.require()
        try RealtimeScheduling.require() // the mock runs as this user: what it may, this process may
        try SessionMock.start(.rtkit)
        let thread = ParkedThread()
        defer { thread.end() }
        let log = LogCapture()
        let rt = RealtimeThreads(priority: 30, broker: RealtimeKit(), calls: plainUser, logger: log.logger)
        XCTAssertEqual(rt.promote([thread.tid], purpose: "test"), .broker("rtkit", priority: 20), "\(log.messages)")
        XCTAssertEqual(thread.policy, rr, "rtkit grants SCHED_RR | SCHED_RESET_ON_FORK")
        XCTAssertEqual(SchedulerCalls.priority(of: thread.tid), 20, "at most rtkit's MaxRealtimePriority")
        XCTAssertLessThanOrEqual(SchedulerCalls.system.realtimeLimit().hard, 200_000, "RLIMIT_RTTIME at most rtkit's RTTimeUSecMax")
        XCTAssertTrue(log.messages.first?.contains("through rtkit") == true, "\(log.messages)")
    }

    /// The mock is honest: a process whose RLIMIT_RTTIME is above its
    /// RTTimeUSecMax is refused, as rtkit does (the limit cannot be raised
    /// again here, so the mock's maximum is lowered below it instead).
    func testRtkitRefusesAProcessWhoseRealtimeLimitIsAboveItsMaximum() throws {
        try SessionMock.require()
        let hard = SchedulerCalls.system.realtimeLimit().hard
        let below = min(hard, 200_000) - 1
        setenv("SYSOUND_RTKIT_RTTIME_USEC_MAX", "\(below)", 1)
        defer { unsetenv("SYSOUND_RTKIT_RTTIME_USEC_MAX") }
        try SessionMock.start(.rtkit)
        XCTAssertEqual(try RealtimeKit().limits().maxRealtimeMicroseconds, below)
        let thread = ParkedThread()
        defer { thread.end() }
        XCTAssertThrowsError(try RealtimeKit().makeRealtime(thread: thread.tid, priority: 5)) { error in
            XCTAssertTrue("\(error)".contains("AccessDenied"), "\(error)")
        }
        XCTAssertEqual(thread.policy, SCHED_OTHER)
    }

    func testWithoutRtkitTheLogSaysWhyAndTheThreadStaysNormal() throws {
        try SessionMock.require()
        let thread = ParkedThread()
        defer { thread.end() }
        let log = LogCapture()
        let rt = RealtimeThreads(priority: 4, broker: RealtimeKit(), calls: plainUser, logger: log.logger)
        guard case .normal(let reasons) = rt.promote([thread.tid], purpose: "test") else { return XCTFail("\(log.messages)") }
        XCTAssertEqual(reasons.count, 2, "\(reasons)")
        XCTAssertTrue(reasons[1].contains("ServiceUnknown") || reasons[1].contains("NameHasNoOwner"), reasons[1])
        XCTAssertEqual(thread.policy, SCHED_OTHER)
        XCTAssertEqual(log.messages.count, 1)
        XCTAssertTrue(log.messages[0].hasPrefix("notice audio threads at normal priority"), log.messages[0])
    }
}
