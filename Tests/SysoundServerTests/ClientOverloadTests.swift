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
        let directory = NSTemporaryDirectory() + "sysound-backlog-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/socket"
        let listener = UnixSocket.seqpacket()
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { close(listener) }
        XCTAssertEqual(UnixSocket.withAddress(path) { bind(listener, $0, $1) }, 0, String(cString: strerror(errno)))
        XCTAssertEqual(listen(listener, 0), 0)
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

    /// The other case stays as it was: a request that went out and got no
    /// reply may still be carried out, and says so.
    func testASentRequestWithoutReplySaysItMayStillBeCarriedOut() {
        let message = ClientError.timedOut(path: "/run/x/socket").description
        XCTAssertTrue(message.contains("was sent"), message)
        XCTAssertTrue(message.contains("not sent again"), message)
    }
}
