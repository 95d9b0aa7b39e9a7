import Foundation
import Glibc
import Logging
import SysoundClient
import SysoundCore
import SysoundPlatform
import XCTest
@testable import SysoundDaemon

/// A handler that records what reached it. `play slow` takes `slowMs`;
/// `play fail` answers `unknown-sound`, like a real theme lookup.
final class RecordingHandler: RequestHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var _requests: [(Request, PeerCredentials)] = []
    private var _reloads = 0
    var slowMs = 300
    /// Reloads fail while this is set (a broken config).
    var reloadError: String?

    var requests: [(Request, PeerCredentials)] { lock.withLock { _requests } }
    var reloads: Int { lock.withLock { _reloads } }

    func handle(_ request: Request, from peer: PeerCredentials, workers: WorkerPool, respond: Responder) {
        lock.withLock { _requests.append((request, peer)) }
        switch request {
        case .play(let play, _):
            if play.source == .name("fail") { return respond(.error(.unknownSound, "no sound named \"fail\"")) }
            let reply = Reply.ok(["id": "\(lock.withLock { _requests.count })", "outcome": "play"])
            // Slow work goes to a worker, as the real handler's waits do.
            if play.source == .name("slow") {
                let us = useconds_t(slowMs * 1000)
                return workers.submit({ usleep(us) }, then: { respond(reply) })
            }
            respond(reply)
        case .list:
            respond(.ok(["count": "2"], records: [["name": "tap"], ["name": "a b"]]))
        default:
            respond(.ok())
        }
    }

    func reload() throws(ReloadError) {
        let failure: String? = lock.withLock {
            _reloads += 1
            return reloadError
        }
        if let failure { throw ReloadError(failure) }
    }

    /// Waits until `count` requests arrived or `timeout` passes.
    func waitForRequests(_ count: Int, timeout: TimeInterval = 2) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while requests.count < count && Date() < deadline { usleep(2000) }
        return requests.count >= count
    }
}

/// A daemon on a fresh temporary state directory, running on a thread.
final class RunningDaemon: @unchecked Sendable {
    let directory: String
    let handler: RecordingHandler
    let daemon: Daemon
    private let finished = DispatchSemaphore(value: 0)
    private let hasFinished = Box(false)
    private let started = DispatchSemaphore(value: 0)
    private let runner = Box<pthread_t?>(nil)

    /// The thread running the daemon's loop (signals are directed at it).
    var thread: pthread_t {
        started.wait()
        started.signal()
        return runner.value!
    }

    static var logger: Logger {
        var logger = Logger(label: "sysound-test")
        logger.logLevel = ProcessInfo.processInfo.environment["SYSOUND_TEST_LOG"] == nil ? .critical : .debug
        return logger
    }

    init(
        directory: String? = nil, handler: RecordingHandler = RecordingHandler(),
        configure: (inout DaemonOptions) -> Void = { _ in }
    ) throws {
        self.directory = directory ?? makeTemporaryDirectory()
        self.handler = handler
        var options = DaemonOptions(stateDirectory: self.directory)
        options.handleSignals = false
        options.socketCheckIntervalMilliseconds = 20
        options.shutdownGraceMilliseconds = 2000
        configure(&options)
        daemon = try Daemon(options: options, handler: handler, logger: Self.logger)
        let daemon = self.daemon
        let finished = self.finished
        let hasFinished = self.hasFinished
        let started = self.started
        let runner = self.runner
        Thread.detachNewThread {
            runner.value = pthread_self()
            started.signal()
            daemon.run()
            hasFinished.value = true
            finished.signal()
        }
    }

    var client: DaemonClient { DaemonClient(socketPath: daemon.socketPath) }

    /// Stops the daemon and waits for `run` to return.
    @discardableResult
    func stop(timeout: TimeInterval = 5) -> Bool {
        daemon.stop()
        return waitUntilFinished(timeout: timeout)
    }

    func waitUntilFinished(timeout: TimeInterval = 5) -> Bool {
        if hasFinished.value { return true }
        return finished.wait(timeout: .now() + timeout) == .success
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/sysound-srv.XXXXXX".utf8CString)
    guard let path = mkdtemp(&template) else { fatalError("mkdtemp failed") }
    return String(cString: path)
}

/// A raw connected SOCK_SEQPACKET socket, for what DaemonClient would never send.
final class RawConnection {
    let fd: Int32

    init(path: String) throws {
        fd = UnixSocket.seqpacket()
        UnixSocket.setTimeout(fd, milliseconds: 3000)
        let rc = UnixSocket.withAddress(path) { connect(fd, $0, $1) }
        guard rc == 0 else {
            Glibc.close(fd)
            throw NSError(domain: "connect", code: Int(errno))
        }
    }

    deinit { close() }

    private var closed = false
    func close() {
        if !closed { Glibc.close(fd); closed = true }
    }

    func send(_ bytes: [UInt8]) {
        XCTAssertEqual(UnixSocket.sendPacket(fd, bytes), 0, "send failed")
    }

    func exchange(_ bytes: [UInt8]) throws -> Reply {
        send(bytes)
        guard case .packet(let reply, _) = UnixSocket.receivePacket(fd, capacity: WireProtocol.maximumReplySize) else {
            throw NSError(domain: "recv", code: Int(errno))
        }
        return try Reply(parsing: reply)
    }
}

/// A value set on one thread and read on another.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: T
    init(_ value: T) { _value = value }
    var value: T {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
    func update(_ change: (inout T) -> Void) { lock.withLock { change(&_value) } }
}

/// Runs a command, returning its exit status and standard output.
func runCommand(_ arguments: [String], input: String = "", timeout: TimeInterval = 10) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    let stdin = Pipe(), stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let data = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func executable(_ name: String) -> String? {
    for dir in ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"] where access(dir + "/" + name, X_OK) == 0 {
        return dir + "/" + name
    }
    return nil
}
