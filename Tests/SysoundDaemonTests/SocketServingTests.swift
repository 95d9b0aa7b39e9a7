import Foundation
import Glibc
import SysoundClient
import SysoundCore
import XCTest
@testable import SysoundDaemon

/// Requests through a real socket to a daemon with a recording handler.
final class SocketServingTests: XCTestCase {
    func testRequestsReachTheHandlerWithPeerCredentials() throws {
        let running = try RunningDaemon()
        XCTAssertEqual(try running.client.send(.ping), .ok())
        XCTAssertEqual(try running.client.send(.play(PlayRequest(.name("tap"), gain: 0.5))), .ok(["id": "2", "outcome": "play"]))
        XCTAssertEqual(try running.client.send(.play(PlayRequest(.name("fail")))), .error(.unknownSound, "no sound named \"fail\""))
        XCTAssertEqual(try running.client.send(.list(.sounds)), .ok(["count": "2"], records: [["name": "tap"], ["name": "a b"]]))
        let (request, peer) = running.handler.requests[1]
        XCTAssertEqual(request, .play(PlayRequest(.name("tap"), gain: 0.5)))
        XCTAssertEqual(peer, PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()))
        var st = stat()
        XCTAssertEqual(stat(running.daemon.socketPath, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600, "socket mode")
    }

    func testMalformedDatagramsEachGetAnErrorAndServingGoesOn() throws {
        let running = try RunningDaemon()
        let connection = try RawConnection(path: running.daemon.socketPath)
        let cases: [([UInt8], WireErrorCode, String)] = [
            ([], .badRequest, "empty request"),
            (Array("\n".utf8), .badRequest, "empty request"),
            ([UInt8](repeating: 0, count: 4096), .badRequest, "control character 0x00"),
            ([UInt8](repeating: 0x20, count: 5000), .tooLarge, "5000 bytes"),
            ([0x73, 0xFF, 0xFE, 0x80], .badRequest, "not UTF-8"),
            (Array("sysound/1 dance".utf8), .badRequest, "unknown verb \"dance\""),
            (Array("sysound/1 play".utf8), .badRequest, "missing a sound name"),
            (Array("sysound/1 play tap gain=1e999999".utf8), .badValue, "gain"),
            (Array("sysound/1 play tap gain=99999999999999999999999999".utf8), .badValue, "gain"),
            (Array("sysound/1 play tap gain=NaN".utf8), .badValue, "gain \"NaN\""),
            (Array("sysound/1 play tap gain=1.01".utf8), .badValue, "gain \"1.01\""),
            (Array("sysound/1 play tap gain=1 gain=1".utf8), .badRequest, "more than once"),
            (Array("sysound/9 ping".utf8), .version, "sysound/9"),
            (Array("GET / HTTP/1.1".utf8), .version, "must start with sysound/1"),
        ]
        for (bytes, code, fragment) in cases {
            let reply = try connection.exchange(bytes)
            guard case .error(let got, let message) = reply else {
                XCTFail("\(bytes.prefix(20)) got \(reply)")
                continue
            }
            XCTAssertEqual(got, code, message)
            XCTAssertTrue(message.contains(fragment), "\(message) lacks \(fragment)")
        }
        XCTAssertEqual(try connection.exchange(Array("sysound/1 ping".utf8)), .ok(), "same connection still served")
        XCTAssertEqual(try running.client.send(.ping), .ok(), "new connections still served")
        XCTAssertEqual(running.handler.requests.count, 2, "malformed requests never reach the handler")
    }

    func testManyConcurrentClientsAndASlowOneDoesNotBlockThem() throws {
        let running = try RunningDaemon()
        running.handler.slowMs = 2000
        let path = running.daemon.socketPath
        let slowDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let reply = try? DaemonClient(socketPath: path).send(.play(PlayRequest(.name("slow")), wait: true))
            XCTAssertEqual(reply?.isOK, true)
            slowDone.signal()
        }
        XCTAssertTrue(running.handler.waitForRequests(1))
        let start = Date()
        let clients = 8, each = 20
        let failed = Box(0)
        DispatchQueue.concurrentPerform(iterations: clients) { i in
            for j in 0..<each {
                let reply = try? DaemonClient(socketPath: path).send(.play(PlayRequest(.name("c\(i)-\(j)"))))
                if reply?.isOK != true { failed.update { $0 += 1 } }
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(failed.value, 0)
        XCTAssertLessThan(elapsed, 1.5, "\(clients * each) requests waited behind the slow one")
        XCTAssertEqual(slowDone.wait(timeout: .now()), .timedOut, "the slow request is still in flight")
        XCTAssertEqual(running.handler.requests.count, 1 + clients * each)
        XCTAssertEqual(slowDone.wait(timeout: .now() + 3), .success)
    }

    func testOneConnectionCarriesManyRequestsInOrder() throws {
        let running = try RunningDaemon()
        let connection = try DaemonConnection(socketPath: running.daemon.socketPath)
        for i in 0..<50 {
            XCTAssertEqual(try connection.send(.play(PlayRequest(.name("n\(i)")))).isOK, true)
        }
        XCTAssertEqual(running.handler.requests.map(\.0), (0..<50).map { .play(PlayRequest(.name("n\($0)"))) })
    }

    /// A request sent while the previous one's reply is due from a worker
    /// waits its turn without the loop spinning on the readable socket.
    func testARequestBehindAWaitingOneIsAnsweredAfterItAndTheLoopIdlesMeanwhile() throws {
        let running = try RunningDaemon()
        running.handler.slowMs = 1000
        let connection = try RawConnection(path: running.daemon.socketPath)
        connection.send(Request.play(PlayRequest(.name("slow"))).encoded())
        XCTAssertTrue(running.handler.waitForRequests(1))
        connection.send(Request.play(PlayRequest(.name("next"))).encoded())
        let cpu0 = Self.processCPUSeconds()
        var replies: [Reply] = []
        for _ in 0..<2 {
            guard case .packet(let bytes, _) = UnixSocket.receivePacket(connection.fd, capacity: WireProtocol.maximumReplySize) else {
                return XCTFail("no reply: errno \(errno)")
            }
            replies.append(try Reply(parsing: bytes))
        }
        let cpu = Self.processCPUSeconds() - cpu0
        XCTAssertEqual(replies, [.ok(["id": "1", "outcome": "play"]), .ok(["id": "2", "outcome": "play"])], "in order")
        XCTAssertEqual(running.handler.requests.count, 2)
        // A loop woken by the waiting request's socket would burn most of the second.
        XCTAssertLessThan(cpu, 0.2, "CPU seconds used while one reply was due")
    }

    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    func testClientThatDisconnectsRightAfterSendingIsStillHandled() throws {
        let running = try RunningDaemon()
        running.handler.slowMs = 100
        let connection = try RawConnection(path: running.daemon.socketPath)
        connection.send(Request.play(PlayRequest(.name("slow"))).encoded())
        connection.close()
        let other = try RawConnection(path: running.daemon.socketPath)
        other.send(Request.play(PlayRequest(.name("gone"))).encoded())
        other.close()
        XCTAssertTrue(running.handler.waitForRequests(2))
        XCTAssertEqual(Set(running.handler.requests.map { "\($0.0)" }).count, 2)
        usleep(200_000)  // the slow reply went to a closed socket: no crash, no SIGPIPE
        XCTAssertEqual(try running.client.send(.ping), .ok())
    }

    func testConnectionLimitRefusesWithBusy() throws {
        let running = try RunningDaemon { $0.maximumConnections = 2 }
        let a = try DaemonConnection(socketPath: running.daemon.socketPath)
        let b = try DaemonConnection(socketPath: running.daemon.socketPath)
        XCTAssertEqual(try a.send(.ping), .ok())
        XCTAssertEqual(try b.send(.ping), .ok())
        guard case .error(.busy, let message) = try running.client.send(.ping) else { return XCTFail("not refused") }
        XCTAssertTrue(message.contains("2 connections"), message)
    }

    func testClientErrorsWhenNoDaemon() {
        let dir = makeTemporaryDirectory()
        defer { rmdir(dir) }
        XCTAssertThrowsError(try DaemonClient(stateDirectory: dir).send(.ping)) { error in
            XCTAssertEqual((error as? ClientError)?.isNoDaemon, true, "\(error)")
            XCTAssertTrue("\(error)".contains("sysound serve"))
        }
        XCTAssertThrowsError(try DaemonClient(socketPath: "/" + String(repeating: "x", count: 200)).send(.ping)) {
            XCTAssertEqual($0 as? ClientError, .badPath("/" + String(repeating: "x", count: 200)))
        }
    }

    func testSocatSpeaksTheProtocol() throws {
        let running = try RunningDaemon()
        let socat = try XCTUnwrap(executable("socat"), "socat is needed for this test: apt-get install socat")
        let address = "UNIX-CONNECT:\(running.daemon.socketPath),type=5"
        let ping = try runCommand([socat, "-t", "2", "-", address], input: "sysound/1 ping\n")
        XCTAssertEqual(ping.output, "sysound/1 ok", "exit \(ping.status)")
        let play = try runCommand([socat, "-t", "2", "-", address], input: "sysound/1 play tap gain=0.5 category=alert\n")
        XCTAssertEqual(play.output, "sysound/1 ok id=2 outcome=play")
        let bad = try runCommand([socat, "-t", "2", "-", address], input: "sysound/1 play tap gain=nan\n")
        XCTAssertTrue(bad.output.hasPrefix("sysound/1 error bad-value gain \"nan\""), bad.output)
        XCTAssertEqual(running.handler.requests.last?.0, .play(PlayRequest(.name("tap"), category: .alert, gain: 0.5)))
    }
}
