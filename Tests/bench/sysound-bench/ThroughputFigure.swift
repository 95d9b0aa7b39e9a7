import Glibc
import Synchronization
import SysoundClient
import SysoundCore

/// Figure 5: requests per second through the daemon's socket from 1, 4 and
/// 16 concurrent clients, each on its own kept-open DaemonConnection, sending
/// pre-encoded datagrams back to back. `play tap` (voices get stolen) and
/// `ping` (the socket round trip alone). Every request must be answered `ok`.
/// The daemon's on-CPU time per request beside each rate (schedstat, every
/// thread): what a request costs the daemon, whatever else shares the cores.
/// And the daemon's thread count (/proc/PID/task) idle and while 100 clients
/// are connected and sending: one event loop serves them all, so it must not
/// grow with clients.
enum ThroughputFigure {
    static func run(_ c: BenchContext) throws {
        guard let daemon = c.daemon else { throw BenchError("no daemon") }
        let duration = c.seconds(2, smoke: 0.3)
        let kinds: [(String, [UInt8])] = [
            ("play tap", Request.play(PlayRequest(.name("tap"))).encoded()),
            ("ping", Request.ping.encoded()),
        ]
        for (label, bytes) in kinds {
            for clients in [1, 4, 16] {
                let cpu0 = ProcFS.threads(of: daemon.pid)
                let result = try measure(socket: daemon.socketPath, bytes: bytes, clients: clients, seconds: duration)
                let cpu = ProcFS.spent(cpu0, ProcFS.threads(of: daemon.pid), \.cpuNanoseconds)
                // On-CPU time per answered request, all daemon threads: unlike the rate,
                // hardly moved by other processes sharing the cores. 1 s / this is
                // what one core could serve if the clients cost nothing.
                c.report.add("5", "\(label), \(clients) client\(clients == 1 ? "" : "s"): daemon CPU per request", unit: "µs",
                             value: Double(cpu) / 1000 / Double(max(result.micros.count, 1)))
                c.report.add("5", "\(label), \(clients) client\(clients == 1 ? "" : "s"): throughput", unit: "req/s", value: result.rate)
                c.report.add("5", "\(label), \(clients) client\(clients == 1 ? "" : "s"): round trip", unit: "µs", result.micros)
                if result.failures > 0 {
                    c.report.problems.append("figure 5: \(result.failures) of \(result.micros.count + result.failures) \(label) requests with \(clients) clients not answered ok (first: \(result.firstFailure ?? "?"))")
                }
            }
        }
        try threadCounts(c, daemon: daemon, duration: duration)
    }

    /// The daemon's threads idle, and the most seen while 100 clients send pings.
    static func threadCounts(_ c: BenchContext, daemon: BenchDaemon, duration: Double) throws {
        let pid = daemon.pid
        let idle = ProcFS.threadCount(of: pid)
        let sampling = Atomic<Bool>(true)
        let most = Atomic<Int>(0)
        let sampler = JoinableThread {
            while sampling.load(ordering: .acquiring) {
                let n = ProcFS.threadCount(of: pid)
                if n > most.load(ordering: .relaxed) { most.store(n, ordering: .relaxed) }
                usleep(5_000)
            }
        }
        let result = try measure(socket: daemon.socketPath, bytes: Request.ping.encoded(), clients: 100, seconds: duration)
        sampling.store(false, ordering: .releasing)
        sampler.join()
        c.report.add("5", "daemon threads: idle", unit: "threads", value: Double(idle))
        c.report.add("5", "daemon threads: 100 clients connected and sending", unit: "threads",
                     value: Double(most.load(ordering: .relaxed)))
        c.report.add("5", "ping, 100 clients: throughput", unit: "req/s", value: result.rate)
        if result.failures > 0 {
            c.report.problems.append("figure 5: \(result.failures) pings with 100 clients not answered ok (first: \(result.firstFailure ?? "?"))")
        }
    }

    struct Result {
        var rate: Double
        var micros: [Double]
        var failures: Int
        var firstFailure: String?
    }

    final class Worker: @unchecked Sendable {
        var micros: [Double] = []
        var failures = 0
        var firstFailure: String?
    }

    static func measure(socket: String, bytes: [UInt8], clients: Int, seconds: Double) throws -> Result {
        let ok = Array("sysound/1 ok".utf8)
        let connections = try (0..<clients).map { _ in try DaemonConnection(socketPath: socket) }
        let workers = (0..<clients).map { _ in Worker() }
        let ready = Atomic<Int>(0)
        let go = Atomic<UInt64>(0)
        let threads = (0..<clients).map { i in
            JoinableThread {
                let w = workers[i], connection = connections[i]
                w.micros.reserveCapacity(200_000)
                ready.add(1, ordering: .relaxed)
                var start = go.load(ordering: .acquiring)
                while start == 0 { start = go.load(ordering: .acquiring) }
                let end = start + UInt64(seconds * 1e9)
                while true {
                    let t0 = Clock.now()
                    if t0 >= end { break }
                    do {
                        let reply = try connection.send(raw: bytes)
                        let t1 = Clock.now()
                        if reply.starts(with: ok) { w.micros.append(Double(t1 - t0) / 1000) } else {
                            w.failures += 1
                            if w.firstFailure == nil { w.firstFailure = String(decoding: reply.prefix(200), as: UTF8.self) }
                        }
                    } catch {
                        w.failures += 1
                        if w.firstFailure == nil { w.firstFailure = "\(error)" }
                    }
                }
            }
        }
        while ready.load(ordering: .relaxed) < clients { usleep(1000) }
        let start = Clock.now()
        go.store(start, ordering: .releasing)
        threads.forEach { $0.join() }
        let elapsed = Clock.seconds(since: start)
        let micros = workers.flatMap(\.micros)
        return Result(rate: Double(micros.count) / elapsed, micros: micros,
                      failures: workers.reduce(0) { $0 + $1.failures }, firstFailure: workers.compactMap(\.firstFailure).first)
    }
}
