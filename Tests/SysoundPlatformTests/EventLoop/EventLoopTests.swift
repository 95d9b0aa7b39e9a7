import Foundation
import Glibc
import SysoundCore
import XCTest
@testable import SysoundPlatform

final class EventLoopTests: XCTestCase {
    /// Runs `loop` on a thread; returns a function that stops it and waits.
    private func running(_ loop: EventLoop) -> () -> Void {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? loop.run()
            done.signal()
        }
        return {
            loop.stop()
            XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "the loop did not stop")
        }
    }

    func testPostRunsInOrderOnTheLoopThread() throws {
        let loop = try EventLoop()
        let stop = running(loop)
        defer { stop() }
        let seen = Locked<[Int]>([])
        let onLoop = Locked<[Bool]>([])
        let done = DispatchSemaphore(value: 0)
        for i in 0..<100 {
            loop.post {
                seen.withLock { $0.append(i) }
                onLoop.withLock { $0.append(loop.isLoopThread) }
                if i == 99 { done.signal() }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(seen.withLock { $0 }, Array(0..<100))
        XCTAssertTrue(onLoop.withLock { $0.allSatisfy { $0 } })
        XCTAssertFalse(loop.isLoopThread)
    }

    func testIOSourceSeesAPipeAndStopsWhenCancelled() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let reads = Locked(0)
        let source = try loop.addIO(fd: fds[0], events: .readable) { _ in
            var byte: UInt8 = 0
            _ = read(fds[0], &byte, 1)
            reads.withLock { $0 += 1 }
            if reads.withLock({ $0 }) == 2 { loop.exit() }
        }
        var byte: UInt8 = 1
        _ = write(fds[1], &byte, 1)
        _ = write(fds[1], &byte, 1)
        try loop.run()
        XCTAssertEqual(reads.withLock { $0 }, 2)
        source.cancel()
        source.cancel()  // idempotent
    }

    /// What is ready when the loop starts (a connection waiting on a passed
    /// socket), and what its handler adds and finds ready (that connection's
    /// request), run before the work added with `addWhenIdle`.
    func testWorkWhenIdleWaitsForWhatIsReadyAndWhatThatAdds() throws {
        let loop = try EventLoop()
        var waiting: [Int32] = [0, 0], request: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&waiting), 0)
        XCTAssertEqual(pipe(&request), 0)
        defer { (waiting + request).forEach { close($0) } }
        var byte: UInt8 = 1
        _ = write(waiting[1], &byte, 1)
        _ = write(request[1], &byte, 1)
        var order: [String] = []
        var sources: [EventSource] = []
        try loop.addWhenIdle {
            order.append("idle")
            loop.exit()
        }
        sources.append(try loop.addIO(fd: waiting[0], events: .readable) { _ in
            _ = read(waiting[0], &byte, 1)
            order.append("accepted")
            do {
                sources.append(try loop.addIO(fd: request[0], events: .readable) { _ in
                    _ = read(request[0], &byte, 1)
                    order.append("answered")
                })
            } catch {
                XCTFail("\(error)")
            }
        })
        try loop.run()
        XCTAssertEqual(order, ["accepted", "answered", "idle"])
        sources.forEach { $0.cancel() }
    }

    func testTimersFireOnTimeOnTheMonotonicClock() throws {
        let loop = try EventLoop()
        let start = EventLoop.monotonicNow()
        var fired: [UInt64] = []
        var ticks = 0
        var once: EventSource?
        once = try loop.addTimer(at: start + 20_000, accuracy: .exact) { _ in
            fired.append(EventLoop.monotonicNow())
            if fired.count == 1 { once?.schedule(at: EventLoop.monotonicNow() + 10_000) } else { loop.exit() }
        }
        let repeating = try loop.addRepeatingTimer(every: 5_000, accuracy: .exact) { _ in ticks += 1 }
        try loop.run()
        repeating.cancel()
        XCTAssertEqual(fired.count, 2, "a one-shot timer arms again with schedule(at:)")
        let late = Int64(fired[0]) - Int64(start + 20_000)
        XCTAssertGreaterThanOrEqual(late, 0)
        // Accuracy 1 µs: no 250 ms of slack (sd-event's default for accuracy 0).
        XCTAssertLessThan(late, 100_000, "timer \(late) µs late")
        XCTAssertGreaterThanOrEqual(fired[1] - fired[0], 10_000)
        XCTAssertTrue((3...6).contains(ticks), "5 ms ticks in about 30 ms: \(ticks)")
    }

    func testWorkerCompletionsComeBackToTheLoopWhileAJobBlocks() throws {
        let loop = try EventLoop()
        let pool = try WorkerPool(size: 2, name: "test-worker", loop: loop)
        defer { pool.shutdown() }
        let release = DispatchSemaphore(value: 0)
        let results = Locked<[Int]>([])
        // One job blocks (a device that does not answer); the other worker
        // and the loop go on.
        pool.submit({ release.wait(); return 1 }, then: { value in
            XCTAssertTrue(loop.isLoopThread)
            results.withLock { $0.append(value) }
            loop.exit()
        })
        pool.submit({ 2 }, then: { value in
            XCTAssertTrue(loop.isLoopThread)
            results.withLock { $0.append(value) }
            release.signal()
        })
        try loop.run()
        XCTAssertEqual(results.withLock { $0 }, [2, 1])
    }

    func testAHostOnItsOwnThreadRunsTimersAndCompletionsOnItsLoop() throws {
        let host = try LoopHost.ownThread(name: "test-host")
        defer { host.loop.stop() }
        let done = DispatchSemaphore(value: 0)
        let seen = Locked<[String]>([])
        host.loop.post {
            let start = EventLoop.monotonicNow()
            // A one-shot timer 20 ms out, kept until its completion comes back.
            let holder = SourceBox()
            holder.source = try? host.loop.addTimer(at: start + 20_000, accuracy: .exact) { now in
                seen.withLock { $0.append(host.loop.isLoopThread && now >= start + 20_000 ? "timer" : "timer off the loop or early") }
                host.workers.submit({ host.loop.isLoopThread }, then: { onLoop in
                    seen.withLock { $0.append(onLoop ? "job on the loop" : "job on a worker") }
                    seen.withLock { $0.append(host.loop.isLoopThread ? "completion" : "completion off the loop") }
                    holder.source = nil
                    done.signal()
                })
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(seen.withLock { $0 }, ["timer", "job on a worker", "completion"])
    }

    func testInotifyEventsNameTheFile() throws {
        let dir = NSTemporaryDirectory() + "evloop-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        XCTAssertEqual(mkdir(dir, 0o700), 0)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let loop = try EventLoop()
        var events: [InotifyEvent] = []
        let watch = try loop.addInotify(path: dir, mask: UInt32(IN_CLOSE_WRITE)) { event in
            events.append(event)
            loop.exit()
        }
        defer { watch.cancel() }
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/volume", contents: Data("0.5\n".utf8)))
        try loop.run()
        XCTAssertEqual(events.first?.name, "volume")
        XCTAssertEqual(events.first?.has(IN_CLOSE_WRITE), true)
    }

    func testSignalsArriveAsEvents() throws {
        let loop = try EventLoop()
        let thread = Locked<pthread_t?>(nil)
        let got = Locked<Int32>(0)
        let done = DispatchSemaphore(value: 0)
        let ready = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // Sources are added on the thread that runs the loop (sd-event is single-threaded).
            let source = try? loop.addSignal(SIGUSR1) { signal in
                got.withLock { $0 = signal }
                loop.exit()
            }
            thread.withLock { $0 = pthread_self() }
            ready.signal()
            _ = try? loop.run()
            source?.cancel()
            EventLoop.unblockSignals([SIGUSR1])
            done.signal()
        }
        XCTAssertEqual(ready.wait(timeout: .now() + 5), .success)
        // To the loop's thread: in the test runner other threads do not block it.
        pthread_kill(thread.withLock { $0 }!, SIGUSR1)
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "SIGUSR1 not seen")
        XCTAssertEqual(got.withLock { $0 }, SIGUSR1)
    }

    /// Plays systemd's side: a NOTIFY_SOCKET datagram socket and WATCHDOG_USEC.
    func testWatchdogPingsAtHalfTheInterval() throws {
        let path = NSTemporaryDirectory() + "notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(receiver); unlink(path) }
        let bound = UnixSocket.withAddress(path) { bind(receiver, $0, $1) }
        XCTAssertEqual(bound, 0)
        setenv("NOTIFY_SOCKET", path, 1)
        setenv("WATCHDOG_USEC", "200000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        defer { unsetenv("NOTIFY_SOCKET"); unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID") }

        let loop = try EventLoop()
        let pings = try loop.startWatchdogPings()
        XCTAssertNotNil(pings)
        let start = EventLoop.monotonicNow()
        let stopTimer = try loop.addTimer(at: start + 550_000, accuracy: .exact) { _ in loop.exit() }
        try loop.run()
        pings?.cancel()
        stopTimer.cancel()
        var times: [UInt64] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let n = recv(receiver, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            guard n > 0 else { break }
            XCTAssertEqual(String(decoding: buffer[..<n], as: UTF8.self), "WATCHDOG=1")
            times.append(EventLoop.monotonicNow())
        }
        // One at start, then every 100 ms: 0, 100, 200, 300, 400, 500 ms.
        XCTAssertEqual(times.count, 6, "pings in 550 ms at a 200 ms watchdog: \(times.count)")

        unsetenv("WATCHDOG_USEC")
        XCTAssertNil(try loop.startWatchdogPings(), "no watchdog, no pings")
        setenv("WATCHDOG_USEC", "200000", 1)
        setenv("WATCHDOG_PID", "1", 1)
        XCTAssertNil(try loop.startWatchdogPings(), "another process's watchdog")
    }

    func testErrorsNameTheCallAndErrno() throws {
        let loop = try EventLoop()
        XCTAssertThrowsError(try loop.addInotify(path: "/nonexistent/dir", mask: UInt32(IN_CREATE)) { _ in }) { error in
            XCTAssertEqual(error as? EventLoopError, EventLoopError(call: "sd_event_add_inotify", errno: ENOENT))
            XCTAssertTrue("\(error)".contains("No such file"), "\(error)")
        }
    }
}

/// Keeps a source alive across closures; used on the loop thread only.
private final class SourceBox: @unchecked Sendable {
    var source: EventSource?
}
