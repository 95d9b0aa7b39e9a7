import CSysoundShims
import Glibc
import Logging
import SysoundCore

/// A small fixed set of threads for what must not run on the loop: calls
/// that block on a device or a server (opening audio, pausing it, force-
/// feedback uploads, decoding a file, waiting for a sound's end). Each job's
/// completion is posted back to the loop, where state changes happen.
///
/// The threads are started once; jobs queue when all are busy, so a job
/// that blocks for seconds delays only the jobs behind it, never the loop.
package final class WorkerPool: @unchecked Sendable {
    // @unchecked: the queue and threads are locked, the rest immutable.
    private let loop: EventLoop
    private let queue = Locked<Queue>(Queue())
    private let available = PosixSemaphore()
    private let threads = Locked<[PosixThread]>([])
    /// The number of threads, fixed at start.
    package let size: Int

    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var stopping = false
    }

    /// Starts `size` threads named `name`.
    package init(size: Int, name: String, loop: EventLoop) throws(EventLoopError) {
        self.loop = loop
        self.size = size
        for _ in 0..<size {
            let thread = try PosixThread.start(name: name) { [self] in work() }
            threads.withLock { $0.append(thread) }
        }
    }

    /// Runs `job` on a worker, then `completion` with its result on the loop thread.
    package func submit<T: Sendable>(_ job: @escaping @Sendable () -> T, then completion: @escaping @Sendable (T) -> Void) {
        let loop = loop
        enqueue {
            let result = job()
            loop.post { completion(result) }
        }
    }

    /// Runs `job` on a worker; nothing comes back.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        enqueue(job)
    }

    /// How much lower than the daemon's other threads background work runs
    /// (a nice value: CFS then gives it about a tenth of a contended core).
    package static let backgroundNice: Int32 = 10

    /// Runs `job` on a thread of its own at nice `backgroundNice`, then
    /// `completion` on the loop: long work no request waits for (a whole
    /// theme decoded at start or on reload). Where rtkit gave the audio
    /// thread no real-time priority, such work at the audio thread's own
    /// priority competes with it for the cores (on 2 cores, often).
    /// A thread of its own because an unprivileged thread cannot take its
    /// priority back (RLIMIT_NICE), and workers must stay prompt; it ends
    /// with the job, so a daemon at rest has no more threads than before.
    /// If no thread can be started, a worker runs the job at its priority;
    /// either failure goes to `logger`.
    package func submitInBackground<T: Sendable>(
        logger: Logger, _ job: @escaping @Sendable () -> T, then completion: @escaping @Sendable (T) -> Void
    ) {
        let loop = loop
        do {
            try PosixThread.start(name: "sysound-load") {
                // On Linux a thread is a task of its own: this lowers this thread only.
                if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(sysound_gettid()), Self.backgroundNice) != 0 {
                    let error = errno
                    loop.post { logger.warning("background work runs at the daemon's priority: setpriority: \(String(cString: strerror(error)))") }
                }
                let result = job()
                loop.post { completion(result) }
            }.detach()
        } catch {
            logger.warning("background work goes to a worker: \(error)")
            submit(job, then: completion)
        }
    }

    /// `transform(i)` for every `i` in `0..<count`, run on the calling thread
    /// and on the workers at once, results in index order. Dispatch's
    /// `concurrentPerform` on this pool's threads: a daemon decoding its
    /// theme gets no thread beyond its fixed set. As wide as the machine has
    /// cores, no wider (more threads than cores only switch more).
    ///
    /// The caller takes indices too and only waits for those a worker has
    /// begun: it never waits for a job queued behind one that blocks (busy
    /// workers make it slower, never stuck), and a worker may call it.
    package func concurrentMap<T: Sendable>(count: Int, _ transform: @escaping @Sendable (Int) -> T) -> [T] {
        guard count > 1 else { return (0..<count).map(transform) }
        let run = ConcurrentRun(count: count, transform: transform)
        let helpers = min(size, count - 1, max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) - 1, 1))
        for _ in 0..<helpers { enqueue { run.work() } }
        run.work()
        return run.waitForResults()
    }

    /// Lets the queued jobs finish and ends the threads (joined).
    package func shutdown() {
        let threads = threads.withLock { t in defer { t = [] }; return t }
        guard !threads.isEmpty else { return }
        queue.withLock { $0.stopping = true }
        for _ in threads { available.post() }
        for thread in threads { thread.join() }
    }

    private func enqueue(_ job: @escaping @Sendable () -> Void) {
        queue.withLock { $0.jobs.append(job) }
        available.post()
    }

    private func work() {
        while true {
            available.wait()
            // Taken out of the queue, not left behind it: a job's closure (and
            // what it captured) is released as soon as the job has run.
            let job: (@Sendable () -> Void)? = queue.withLock { q in
                q.jobs.isEmpty ? nil : q.jobs.removeFirst()
            }
            if let job { job(); continue }
            if queue.withLock({ $0.stopping }) { return }
        }
    }
}
