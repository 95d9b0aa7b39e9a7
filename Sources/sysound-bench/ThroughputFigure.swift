import Glibc
import Synchronization
import SysoundClient
import SysoundCore

/// Figure 5: requests per second through the daemon's socket from 1, 4 and
/// 16 concurrent clients, each on its own kept-open DaemonConnection, sending
/// pre-encoded datagrams back to back. `play tap` (voices get stolen) and
/// `ping` (the socket round trip alone). Every request must be answered `ok`.
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
                let result = try measure(socket: daemon.socketPath, bytes: bytes, clients: clients, seconds: duration)
                c.report.add("5", "\(label), \(clients) client\(clients == 1 ? "" : "s"): throughput", unit: "req/s", value: result.rate)
                c.report.add("5", "\(label), \(clients) client\(clients == 1 ? "" : "s"): round trip", unit: "µs", result.micros)
                if result.failures > 0 {
                    c.report.problems.append("figure 5: \(result.failures) of \(result.micros.count + result.failures) \(label) requests with \(clients) clients not answered ok (first: \(result.firstFailure ?? "?"))")
                }
            }
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
