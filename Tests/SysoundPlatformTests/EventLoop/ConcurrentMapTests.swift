import Foundation
import Glibc
import SysoundCore
import XCTest
@testable import SysoundPlatform

final class ConcurrentMapTests: XCTestCase {
    func testEveryIndexRunsOnceInOrderOnTheCallerAndTheWorkers() throws {
        let loop = try EventLoop()
        let pool = try WorkerPool(size: 2, name: "test-map", loop: loop)
        defer { pool.shutdown() }
        let caller = pthread_self()
        let threads = Locked<Set<UInt>>([])
        let runs = Locked<[Int: Int]>([:])
        let results = pool.concurrentMap(count: 12) { i in
            runs.withLock { $0[i, default: 0] += 1 }
            threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            usleep(10_000)  // long enough for the workers to take indices too
            return i * i
        }
        XCTAssertEqual(results, (0..<12).map { $0 * $0 })
        XCTAssertEqual(runs.withLock { $0 }, Dictionary(uniqueKeysWithValues: (0..<12).map { ($0, 1) }))
        let seen = threads.withLock { $0 }
        XCTAssertTrue(seen.contains(UInt(caller)), "the caller takes indices too")
        XCTAssertTrue(seen.count > 1 && seen.count <= 3, "the caller and the pool's 2 workers, no other thread: \(seen.count)")
    }

    func testAWorkerCanCallItWhileEveryOtherWorkerBlocks() throws {
        let loop = try EventLoop()
        let pool = try WorkerPool(size: 2, name: "test-map", loop: loop)
        let release = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
        let results = Locked<[Int]>([])
        // One worker blocks (a device that does not answer); the other calls
        // concurrentMap, whose helper jobs queue behind the blocked one: it
        // must do every index itself rather than wait for them.
        pool.submit { release.wait() }
        pool.submit {
            let r = pool.concurrentMap(count: 5) { $0 + 1 }
            results.withLock { $0 = r }
            finished.signal()
        }
        let outcome = finished.wait(timeout: .now() + 5)
        release.signal()
        pool.shutdown()
        XCTAssertEqual(outcome, .success, "concurrentMap on a worker waited for jobs queued behind a blocked one")
        XCTAssertEqual(results.withLock { $0 }, [1, 2, 3, 4, 5])
    }

    func testNoneAndOneRunOnTheCaller() throws {
        let loop = try EventLoop()
        let pool = try WorkerPool(size: 2, name: "test-map", loop: loop)
        defer { pool.shutdown() }
        XCTAssertEqual(pool.concurrentMap(count: 0) { $0 }, [])
        let caller = UInt(pthread_self())
        XCTAssertEqual(pool.concurrentMap(count: 1) { _ in UInt(pthread_self()) }, [caller])
    }
}
