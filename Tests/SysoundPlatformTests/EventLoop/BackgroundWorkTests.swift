import CSysoundShims
import Foundation
import Glibc
import Logging
import SysoundCore
import XCTest
@testable import SysoundPlatform

final class BackgroundWorkTests: XCTestCase {
    /// A theme's decoding yields to the audio thread: it runs niced, on a
    /// thread that is neither a worker nor the caller, and the workers keep
    /// their priority afterwards; the result comes back on the loop.
    func testBackgroundWorkRunsNicedOnAThreadOfItsOwnAndAnswersOnTheLoop() throws {
        let loop = try EventLoop()
        try loop.runOnThread(name: "test-bg-loop")
        let pool = try WorkerPool(size: 1, name: "test-bg", loop: loop)
        defer { pool.shutdown() }
        let priority: @Sendable () -> Int32 = { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(sysound_gettid())) }
        let before = priority()
        let worker = Locked<(tid: pid_t, nice: Int32)?>(nil)
        let done = DispatchSemaphore(value: 0)
        pool.submit { worker.withLock { $0 = (sysound_gettid(), priority()) } }
        let answer = Locked<(job: pid_t, nice: Int32, onLoop: Bool)?>(nil)
        pool.submitInBackground(logger: Logger(label: "test"), { (sysound_gettid(), priority()) }, then: { result in
            answer.withLock { $0 = (result.0, result.1, loop.isLoopThread) }
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the completion ran")
        let (job, nice, onLoop) = try XCTUnwrap(answer.withLock { $0 })
        XCTAssertEqual(nice, before + WorkerPool.backgroundNice)
        XCTAssertTrue(onLoop, "the completion runs on the loop thread")
        XCTAssertNotEqual(job, sysound_gettid())
        XCTAssertNotEqual(job, worker.withLock { $0 }?.tid, "not on a worker")
        // A worker afterwards still runs at the process's priority.
        let later = DispatchSemaphore(value: 0)
        pool.submit { worker.withLock { $0 = (sysound_gettid(), priority()) }; later.signal() }
        XCTAssertEqual(later.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(worker.withLock { $0 }?.nice, before)
    }
}
