import Foundation
import Glibc
import SysoundClient
import SysoundCore
import XCTest

/// What the client says when a daemon is there but takes nothing: the
/// request was never sent, so the message must not claim it was.
final class ClientOverloadTests: XCTestCase {
    /// A listening socket that never accepts, its queue of waiting
    /// connections filled by connections of its own: the next connect
    /// waits, then fails with EAGAIN.
    func testAFullConnectionQueueSaysTheRequestWasNotSent() throws {
        let (directory, listener) = try Self.listeningSocket()
        defer { close(listener); try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/socket"
        // Queue connections that nobody accepts until the kernel refuses one
        // (a backlog of 0 holds one, or a few on older kernels).
        var fillers: [Int32] = []
        defer { fillers.forEach { close($0) } }
        var full = false
        for _ in 0..<64 where !full {
            let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            XCTAssertGreaterThanOrEqual(fd, 0)
            fillers.append(fd)
            let rc = UnixSocket.withAddress(path) { connect(fd, $0, $1) == 0 ? 0 : errno }
            full = rc == EAGAIN
        }
        XCTAssertTrue(full, "the connection queue never filled")

        let started = DispatchTime.now()
        XCTAssertThrowsError(try DaemonClient(socketPath: path, timeoutMilliseconds: 200).send(.ping)) { error in
            guard let error = error as? ClientError else { return XCTFail("\(error)") }
            XCTAssertEqual(error, .notSent(path: path, connected: false, waitedMilliseconds: 200))
            let message = error.description
            XCTAssertTrue(message.contains("not sent"), message)
            XCTAssertFalse(message.contains("was sent"), message)
            XCTAssertTrue(message.contains(path), "the message names the socket: \(message)")
            XCTAssertTrue(message.contains("retry"), "the message says what to do: \(message)")
            XCTAssertEqual(error.exitStatus, EX_TEMPFAIL, "a busy daemon is a temporary failure")
            // The daemon is there: no second engine takes over its requests.
            XCTAssertFalse(error.reachedNoDaemon)
        }
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e6
        XCTAssertLessThan(waited, 2000, "the client waits its timeout, not longer")
    }

    /// A daemon that accepted the connection but reads nothing: each request
    /// goes out and times out waiting for its reply, until the connection's
    /// queue is full and the next one is never sent.
    func testAFullRequestQueueOnAnOpenConnectionSaysTheRequestWasNotSent() throws {
        let (directory, listener) = try Self.listeningSocket()
        defer { close(listener); try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/socket"
        // A live process (this one) holds the instance lock: a daemon that
        // runs, not one socket activation is starting, which the client
        // would wait for.
        try "\(getpid())\n".write(toFile: directory + "/daemon.lock", atomically: true, encoding: .utf8)
        let connection = try DaemonConnection(socketPath: path, timeoutMilliseconds: 5)
        let accepted = accept(listener, nil, nil)
        XCTAssertGreaterThanOrEqual(accepted, 0)
        defer { close(accepted) }
        var outcome: ClientError?
        // Until the unread datagrams reach the kernel's limit for the connection (a few hundred pings).
        for _ in 0..<5000 {
            do {
                _ = try connection.send(.ping)
                return XCTFail("nobody answers, yet a reply came")
            } catch .timedOut {
                continue  // sent, and queued unread
            } catch {
                outcome = error
                break
            }
        }
        XCTAssertEqual(outcome, .notSent(path: path, connected: true, waitedMilliseconds: 5))
        let message = outcome?.description ?? ""
        XCTAssertTrue(message.contains("not sent") && !message.contains("was sent"), message)
        XCTAssertTrue(message.contains(path), message)
    }

    static func listeningSocket() throws -> (directory: String, fd: Int32) {
        let directory = NSTemporaryDirectory() + "sysound-backlog-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fd = UnixSocket.seqpacket()
        guard fd >= 0, UnixSocket.withAddress(directory + "/socket", { bind(fd, $0, $1) }) == 0, listen(fd, 0) == 0 else {
            throw XCTSkip("cannot listen on a unix socket here: \(String(cString: strerror(errno)))")
        }
        return (directory, fd)
    }

    /// The other case stays as it was: a request that went out and got no
    /// reply may still be carried out, and says so.
    func testASentRequestWithoutReplySaysItMayStillBeCarriedOut() {
        let message = ClientError.timedOut(path: "/run/x/socket").description
        XCTAssertTrue(message.contains("was sent"), message)
        XCTAssertTrue(message.contains("not sent again"), message)
    }
}
