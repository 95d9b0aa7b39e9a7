import Glibc
import SysoundCore
import SysoundPlatform
import SysoundTestSupport
import XCTest

/// The order of the two ways and what the log says, with the system calls
/// and the broker substituted (`SchedulerCalls`, `RealtimeBroker`).
final class RealtimeThreadsTests: XCTestCase {
    /// Records what RealtimeThreads asked the kernel.
    final class FakeKernel: @unchecked Sendable {
        var fifoErrno: Int32 = 0
        var fifoCalls: [(pid_t, Int32)] = []
        var limit: (soft: UInt64, hard: UInt64) = (.max, .max)
        var calls: SchedulerCalls {
            SchedulerCalls(
                setFIFO: { tid, p in self.fifoCalls.append((tid, p)); return self.fifoErrno },
                realtimeLimit: { self.limit },
                setRealtimeLimit: { us in self.limit = (us, us); return 0 })
        }
    }

    final class FakeBroker: RealtimeBroker, @unchecked Sendable {
        let name = "rtkit"
        var refusal: RealtimeRefusal?
        var granted: [(pid_t, Int32, UInt64)] = []
        let kernel: FakeKernel
        init(kernel: FakeKernel) { self.kernel = kernel }
        func limits() throws(RealtimeRefusal) -> RealtimeBrokerLimits {
            RealtimeBrokerLimits(maxPriority: 20, maxRealtimeMicroseconds: 100_000)
        }
        func makeRealtime(thread tid: pid_t, priority: Int32) throws(RealtimeRefusal) {
            if let refusal { throw refusal }
            granted.append((tid, priority, kernel.limit.hard))
        }
    }

    func testTheDirectWayComesFirstAndSetsTheWatchdog() {
        let kernel = FakeKernel(), broker = FakeBroker(kernel: FakeKernel()), log = LogCapture()
        let rt = RealtimeThreads(priority: 4, broker: broker, calls: kernel.calls, logger: log.logger)
        XCTAssertEqual(rt.promote([101, 102], purpose: "mixer"), .direct(priority: 4))
        XCTAssertEqual(kernel.fifoCalls.map(\.0), [101, 102])
        XCTAssertTrue(broker.granted.isEmpty, "rtkit is not asked when the process may do it itself")
        XCTAssertEqual(kernel.limit.hard, 200_000, "RLIMIT_RTTIME bounds a thread that never blocks")
        XCTAssertEqual(log.messages, ["info audio threads real-time: SCHED_FIFO 4, set directly (sched_setscheduler) [mixer: 101, 102]"])
        rt.promote([103], purpose: "mixer")
        XCTAssertEqual(log.messages.count, 1, "the same way again is not logged again: \(log.messages)")
    }

    func testRtkitWhenTheProcessMayNotAndItsRulesAreFollowed() {
        let kernel = FakeKernel(), log = LogCapture()
        kernel.fifoErrno = EPERM
        let broker = FakeBroker(kernel: kernel)
        let rt = RealtimeThreads(priority: 50, broker: broker, calls: kernel.calls, logger: log.logger)
        XCTAssertEqual(rt.promote([7], purpose: "mixer"), .broker("rtkit", priority: 20), "at most rtkit's MaxRealtimePriority")
        XCTAssertEqual(broker.granted.first?.0, 7)
        XCTAssertEqual(broker.granted.first?.2, 100_000, "RLIMIT_RTTIME at rtkit's RTTimeUSecMax before asking")
        XCTAssertEqual(log.messages.count, 1)
        XCTAssertTrue(log.messages[0].hasPrefix("info audio threads real-time: SCHED_RR 20 through rtkit"), log.messages[0])
    }

    func testNeitherWaySaysWhyAndOnce() {
        let kernel = FakeKernel(), log = LogCapture()
        kernel.fifoErrno = EPERM
        let broker = FakeBroker(kernel: kernel)
        broker.refusal = RealtimeRefusal("MakeThreadRealtime: org.freedesktop.DBus.Error.ServiceUnknown: no rtkit")
        let rt = RealtimeThreads(priority: 4, broker: broker, calls: kernel.calls, logger: log.logger)
        guard case .normal(let reasons) = rt.promote([7], purpose: "mixer") else { return XCTFail("not at normal priority") }
        XCTAssertEqual(reasons.count, 2, "\(reasons)")
        rt.promote([8], purpose: "mixer")
        XCTAssertEqual(log.messages, [
            "notice audio threads at normal priority, neither way to real-time worked (sched_setscheduler(SCHED_FIFO, 4): Operation not permitted; rtkit: MakeThreadRealtime: org.freedesktop.DBus.Error.ServiceUnknown: no rtkit); sounds may break up while the CPU is busy [mixer: 7]",
        ])
        // When rtkit comes, the log says so.
        broker.refusal = nil
        XCTAssertEqual(rt.promote([9], purpose: "mixer"), .broker("rtkit", priority: 4))
        XCTAssertEqual(log.messages.count, 2)
    }

    func testWithoutABrokerTheLogSaysThereIsNone() {
        let kernel = FakeKernel(), log = LogCapture()
        kernel.fifoErrno = EPERM
        let rt = RealtimeThreads(priority: 4, broker: nil, calls: kernel.calls, logger: log.logger)
        XCTAssertEqual(rt.promote([7], purpose: "mixer"), .normal(reasons: ["sched_setscheduler(SCHED_FIFO, 4): Operation not permitted", "no rtkit to ask"]))
    }

    func testAThreadThatEndedMeanwhileIsSkipped() {
        let kernel = FakeKernel(), log = LogCapture()
        kernel.fifoErrno = ESRCH
        let rt = RealtimeThreads(priority: 4, broker: FakeBroker(kernel: kernel), calls: kernel.calls, logger: log.logger)
        XCTAssertEqual(rt.promote([7], purpose: "mixer"), .none)
        XCTAssertEqual(log.messages, [], "nothing to say about a thread that is gone")
    }

    func testPriorityZeroIsOffAndTouchesNothing() {
        let kernel = FakeKernel(), log = LogCapture()
        let rt = RealtimeThreads(priority: 0, broker: FakeBroker(kernel: kernel), calls: kernel.calls, logger: log.logger)
        XCTAssertEqual(rt.promote([7], purpose: "mixer"), .off)
        XCTAssertTrue(kernel.fifoCalls.isEmpty)
        XCTAssertEqual(kernel.limit.hard, .max)
        XCTAssertEqual(log.messages, ["info audio threads at normal priority: switched off by realtime_priority = 0 [mixer: 7]"])
        XCTAssertEqual(rt.promote([], purpose: "mixer"), .none)
    }

    /// The census finds a thread started during the call under the marker
    /// (an unnamed thread's creator's name) or a listed one, and leaves out
    /// one that named itself otherwise; the caller has its own name back.
    func testTheCensusTakesOnlyThreadsTheCallStartedUnderTheExpectedNames() {
        let own = ThreadCensus.name(of: SchedulerCalls.currentThread())
        var parked: [ParkedThread] = []
        let (_, found) = ThreadCensus.started(as: "census-test", orNamed: ["threaded-ml"]) {
            XCTAssertEqual(ThreadCensus.name(of: SchedulerCalls.currentThread()), "census-test")
            parked.append(ParkedThread()) // inherits this thread's name: the marker
            parked.append(ParkedThread(name: "threaded-ml"))
            parked.append(ParkedThread(name: "someone-else"))
        }
        defer { parked.forEach { $0.end() } }
        XCTAssertEqual(found, [parked[0].tid, parked[1].tid])
        XCTAssertEqual(ThreadCensus.name(of: parked[0].tid), "census-test")
        XCTAssertEqual(ThreadCensus.name(of: SchedulerCalls.currentThread()), own)
    }

    /// A thread that another thread sharing the caller's usual name starts
    /// while the call runs (two workers of one pool) is not the call's.
    func testTheCensusLeavesOutAThreadStartedMeanwhileByAThreadOfTheSameName() throws {
        let own = try XCTUnwrap(ThreadCensus.name(of: SchedulerCalls.currentThread()))
        let twin = ParkedThread(name: own, startsAChild: true) // starts an unnamed thread when told
        defer { twin.end() }
        var theirs: pid_t = 0
        let (_, found) = ThreadCensus.started(as: "census-test") {
            theirs = twin.startChild()
        }
        XCTAssertNotEqual(theirs, 0)
        XCTAssertEqual(ThreadCensus.name(of: theirs), own, "born with its creator's name, the caller's usual one")
        XCTAssertEqual(found, [], "not the call's")
    }
}
