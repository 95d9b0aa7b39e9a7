import Glibc
import SysoundCore
import XCTest

final class LockedTests: XCTestCase {
    /// Four threads each add 50 000 times through `withLock`: an unguarded
    /// read-modify-write on 2 cores loses some of them.
    func testConcurrentUpdatesAreNotLost() {
        let counter = Locked(0)
        let threads = 4, rounds = 50_000
        let done = UnsafeMutablePointer<pthread_t>.allocate(capacity: threads)
        defer { done.deallocate() }
        final class Context { let counter: Locked<Int>; let rounds: Int
            init(_ c: Locked<Int>, _ r: Int) { counter = c; rounds = r } }
        for i in 0..<threads {
            let context = Unmanaged.passRetained(Context(counter, rounds)).toOpaque()
            XCTAssertEqual(pthread_create(done + i, nil, { raw in
                let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
                for _ in 0..<context.rounds { context.counter.withLock { $0 += 1 } }
                return nil
            }, context), 0)
        }
        for i in 0..<threads { pthread_join(done[i], nil) }
        XCTAssertEqual(counter.withLock { $0 }, threads * rounds)
    }

    /// A typed error thrown inside the section comes out with its type, and
    /// the lock is released on the way out.
    func testThrowingBodyReleasesTheLock() {
        struct Refused: Error {}
        let value = Locked([1])
        XCTAssertThrowsError(try value.withLock { (v: inout [Int]) throws(Refused) in
            v.append(2)
            throw Refused()
        })
        XCTAssertEqual(value.withLock { $0 }, [1, 2])
    }
}
