import Foundation
import Glibc
import SysoundClient
import SysoundCore
import XCTest
import SysoundPlatform
@testable import SysoundDaemon

/// Start-up, access control, signals, socket upkeep and systemd integration.
final class DaemonLifecycleTests: XCTestCase {
    /// `socat` run as nobody (uid/gid 65534) via setpriv, sending one request.
    private func pingAsNobody(_ socketPath: String, extraGroup: String? = nil) throws -> String {
        let setpriv = try XCTUnwrap(executable("setpriv"), "setpriv (util-linux) is needed")
        let socat = try XCTUnwrap(executable("socat"), "socat is needed: apt-get install socat")
        var arguments = [setpriv, "--reuid=65534", "--regid=65534"]
        arguments += extraGroup.map { ["--groups=\($0)"] } ?? ["--clear-groups"]
        arguments += [socat, "-t", "2", "-", "UNIX-CONNECT:\(socketPath),type=5"]
        return try runCommand(arguments, input: "sysound/1 ping\n").output
    }

    /// The directory must be traversable and the socket writable by nobody
    /// for connect(2) to reach the daemon's own check at all.
    private func openToEveryone(_ running: RunningDaemon) {
        XCTAssertEqual(chmod(running.directory, 0o711), 0)
        XCTAssertEqual(chmod(running.daemon.socketPath, 0o666), 0)
    }

    func testAnotherUserIsRefusedEvenIfTheSocketModeLetsItConnect() throws {
        try XCTSkipIf(getuid() != 0, "needs root to run a client as nobody")
        let running = try RunningDaemon()
        openToEveryone(running)
        let output = try pingAsNobody(running.daemon.socketPath)
        XCTAssertTrue(output.hasPrefix("sysound/1 error denied uid 65534 may not use this daemon"), output)
        XCTAssertTrue(running.handler.requests.isEmpty, "a refused peer's request reached the handler")
        XCTAssertEqual(try running.client.send(.ping), .ok(), "root (the daemon's own user here) is still served")
    }

    func testMembersOfTheAllowedGroupGetIn() throws {
        try XCTSkipIf(getuid() != 0, "needs root to run a client as nobody")
        // A supplementary group (via SO_PEERGROUPS), not nobody's primary one.
        let running = try RunningDaemon { $0.allowedGroup = "adm" }
        var st = stat()
        XCTAssertEqual(stat(running.daemon.socketPath, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o660, "group members need write access to connect")
        XCTAssertEqual(st.st_gid, try PeerAccess.groupID(named: "adm"))
        XCTAssertEqual(chmod(running.directory, 0o711), 0)
        XCTAssertEqual(try pingAsNobody(running.daemon.socketPath, extraGroup: "adm"), "sysound/1 ok")
        openToEveryone(running)
        XCTAssertTrue(try pingAsNobody(running.daemon.socketPath).contains("error denied"))
        XCTAssertEqual(running.handler.requests.count, 1)
        XCTAssertEqual(running.handler.requests.first?.1.uid, 65534)
    }

    func testUnknownAllowedGroupIsAStartError() {
        let dir = makeTemporaryDirectory()
        defer { rmdir(dir) }
        var options = DaemonOptions(stateDirectory: dir, allowedGroup: "no-such-group-here")
        options.handleSignals = false
        XCTAssertThrowsError(try Daemon(options: options, handler: RecordingHandler(), logger: RunningDaemon.logger)) {
            XCTAssertEqual($0 as? DaemonError, .unknownGroup("no-such-group-here"))
        }
    }

    func testASecondDaemonOnTheSameDirectoryRefusesNamingTheFirst() throws {
        let running = try RunningDaemon()
        var options = DaemonOptions(stateDirectory: running.directory)
        options.handleSignals = false
        XCTAssertThrowsError(try Daemon(options: options, handler: RecordingHandler(), logger: RunningDaemon.logger)) { error in
            guard case .alreadyRunning(let pid, _, let socket) = error as? DaemonError else { return XCTFail("\(error)") }
            XCTAssertEqual(pid, getpid())
            XCTAssertEqual(socket, running.directory + "/socket")
            XCTAssertTrue("\(error)".contains("PID \(getpid())"), "\(error)")
        }
        XCTAssertEqual(try running.client.send(.ping), .ok(), "the first keeps serving")
        XCTAssertTrue(running.stop())
        // Once the first is gone the directory is free again.
        let second = try RunningDaemon(directory: running.directory)
        XCTAssertEqual(try second.client.send(.ping), .ok())
    }

    func testAnAnsweringSocketWithoutLockIsNotStolen() throws {
        let running = try RunningDaemon()
        // Someone removed the lock file; the socket still answers.
        XCTAssertEqual(unlink(running.directory + "/daemon.lock"), 0)
        var options = DaemonOptions(stateDirectory: running.directory)
        options.handleSignals = false
        XCTAssertThrowsError(try Daemon(options: options, handler: RecordingHandler(), logger: RunningDaemon.logger)) {
            guard case .alreadyRunning(let pid?, _, _) = $0 as? DaemonError else { return XCTFail("\($0)") }
            XCTAssertEqual(pid, getpid())
        }
        XCTAssertEqual(try running.client.send(.ping), .ok())
    }

    func testAStaleSocketFileIsReplaced() throws {
        let dir = makeTemporaryDirectory()
        let stale = UnixSocket.seqpacket()
        XCTAssertEqual(UnixSocket.withAddress(dir + "/socket") { bind(stale, $0, $1) }, 0)
        close(stale)  // the file stays, nobody listens: a crashed daemon's leftover
        let running = try RunningDaemon(directory: dir)
        XCTAssertEqual(try running.client.send(.ping), .ok())
    }

    func testStopFinishesTheReplyInFlightAndRemovesSocketAndLock() throws {
        let running = try RunningDaemon()
        running.handler.slowMs = 300
        let path = running.daemon.socketPath
        let reply = Box<Reply?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            reply.value = try? DaemonClient(socketPath: path).send(.play(PlayRequest(.name("slow"))))
            done.signal()
        }
        XCTAssertTrue(running.handler.waitForRequests(1))
        XCTAssertTrue(running.stop())
        XCTAssertEqual(done.wait(timeout: .now() + 2), .success)
        XCTAssertEqual(reply.value?.isOK, true, "the request in flight got its reply")
        XCTAssertNotEqual(access(path, F_OK), 0, "socket removed")
        XCTAssertNotEqual(access(running.directory + "/daemon.lock", F_OK), 0, "lock removed")
        XCTAssertThrowsError(try DaemonClient(socketPath: path).send(.ping)) {
            XCTAssertEqual(($0 as? ClientError)?.isNoDaemon, true)
        }
    }

    /// A removed lock file is taken again; if another daemon locked a new one
    /// first, this daemon stops rather than share the directory.
    func testARemovedLockIsReclaimedOrTheDaemonYields() throws {
        let running = try RunningDaemon { $0.socketCheckIntervalMilliseconds = 300 }
        let lockPath = running.directory + "/daemon.lock"
        XCTAssertEqual(unlink(lockPath), 0)
        let deadline = Date().addingTimeInterval(2)
        while access(lockPath, F_OK) != 0 && Date() < deadline { usleep(5_000) }
        XCTAssertEqual(try String(contentsOfFile: lockPath, encoding: .utf8), "\(getpid())\n", "not locked again")
        XCTAssertEqual(try running.client.send(.ping), .ok())

        // Now someone else is quicker: unlink and lock before the next check.
        XCTAssertEqual(unlink(lockPath), 0)
        let other = try InstanceLock(path: lockPath, socketPath: running.daemon.socketPath)
        defer { other.release() }
        XCTAssertTrue(running.waitUntilFinished(timeout: 3), "the daemon kept serving without its lock")
        XCTAssertEqual(other.reclaimIfRemoved(), .intact, "the stopping daemon removed the other's lock file")
    }

    /// The real signal path, in-process: the loop reads the signals from a
    /// signalfd. A daemon process blocks them in every thread (the serve
    /// command does so first thing); in the test runner other threads do not,
    /// so the test directs them at the loop's thread.
    func testSIGTERMStopsCleanlyAndSIGHUPReloadsKeepingServing() throws {
        let running = try RunningDaemon { $0.handleSignals = true }
        XCTAssertEqual(try running.client.send(.ping), .ok())  // loop running: handlers installed

        running.handler.reloadError = "config line 3: unknown key"
        pthread_kill(running.thread, SIGHUP)
        XCTAssertTrue(waitUntil { running.handler.reloads == 1 })
        XCTAssertEqual(try running.client.send(.ping), .ok(), "a failed reload keeps the daemon serving")
        running.handler.reloadError = nil
        usleep(20_000)
        pthread_kill(running.thread, SIGHUP)
        XCTAssertTrue(waitUntil { running.handler.reloads == 2 })

        pthread_kill(running.thread, SIGTERM)
        XCTAssertTrue(running.waitUntilFinished(), "SIGTERM did not stop the daemon")
        XCTAssertNotEqual(access(running.daemon.socketPath, F_OK), 0, "socket removed")
        XCTAssertNotEqual(access(running.directory + "/daemon.lock", F_OK), 0, "lock removed")
    }

    func testADeletedSocketIsRecreated() throws {
        let running = try RunningDaemon()
        XCTAssertEqual(unlink(running.daemon.socketPath), 0)
        XCTAssertTrue(waitUntil { access(running.daemon.socketPath, F_OK) == 0 }, "socket not recreated")
        XCTAssertEqual(try running.client.send(.ping), .ok())
        var st = stat()
        XCTAssertEqual(stat(running.daemon.socketPath, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
    }

    func testSystemdPassedSocketIsUsedAndLeftInPlace() throws {
        let dir = makeTemporaryDirectory()
        let path = dir + "/socket"
        let listener = UnixSocket.seqpacket()
        XCTAssertEqual(UnixSocket.withAddress(path) { bind(listener, $0, $1) }, 0)
        XCTAssertEqual(listen(listener, 16), 0)
        // fd 3 belongs to the test runner; pass the socket at a free number instead.
        let passed: Int32 = 700
        XCTAssertEqual(dup2(listener, passed), passed)
        close(listener)
        setenv("LISTEN_PID", "\(getpid())", 1)
        setenv("LISTEN_FDS", "1", 1)
        let running = try RunningDaemon(directory: dir) { $0.firstPassedFD = passed }
        XCTAssertNil(getenv("LISTEN_PID"), "LISTEN_PID unset")
        XCTAssertNil(getenv("LISTEN_FDS"), "LISTEN_FDS unset")
        XCTAssertEqual(fcntl(passed, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC)
        XCTAssertEqual(running.daemon.socketPath, path)
        XCTAssertEqual(try running.client.send(.ping), .ok())
        XCTAssertTrue(running.stop())
        XCTAssertEqual(access(path, F_OK), 0, "systemd's socket file stays")
    }

    func testPassedSocketsOfAnotherProcessOrKindAreIgnoredOrRefused() throws {
        setenv("LISTEN_PID", "1", 1)
        setenv("LISTEN_FDS", "1", 1)
        XCTAssertEqual(ServiceManager.passedSockets(firstFD: 700), [], "LISTEN_PID of another process")
        XCTAssertNil(getenv("LISTEN_FDS"))
        let datagram = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(datagram) }
        XCTAssertThrowsError(try ListeningSocket.adopt(fd: datagram)) {
            XCTAssertTrue("\($0)".contains("ListenSequentialPacket="), "\($0)")
        }
    }

    func testReadinessIsNotifiedToSystemd() throws {
        let dir = makeTemporaryDirectory()
        let notifyPath = dir + "/notify"
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(receiver) }
        XCTAssertEqual(UnixSocket.withAddress(notifyPath) { bind(receiver, $0, $1) }, 0)
        UnixSocket.setTimeout(receiver, milliseconds: 2000)
        setenv("NOTIFY_SOCKET", notifyPath, 1)
        defer { unsetenv("NOTIFY_SOCKET") }
        let running = try RunningDaemon(directory: dir)
        guard case .packet(let ready, _) = UnixSocket.receivePacket(receiver, capacity: 512) else { return XCTFail("no READY") }
        XCTAssertEqual(
            String(decoding: ready, as: UTF8.self), "READY=1\nMAINPID=\(getpid())\nSTATUS=serving \(running.daemon.socketPath)")
        running.stop()
        guard case .packet(let stopping, _) = UnixSocket.receivePacket(receiver, capacity: 512) else { return XCTFail("no STOPPING") }
        XCTAssertEqual(String(decoding: stopping, as: UTF8.self), "STOPPING=1")
    }

    /// systemd's side of the watchdog: WATCHDOG_USEC (for this PID) and a
    /// NOTIFY_SOCKET datagram socket; the daemon pings at half the interval.
    func testTheDaemonPingsTheWatchdogAtHalfTheInterval() throws {
        let dir = makeTemporaryDirectory()
        let notifyPath = dir + "/notify"
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(receiver) }
        XCTAssertEqual(UnixSocket.withAddress(notifyPath) { bind(receiver, $0, $1) }, 0)
        setenv("NOTIFY_SOCKET", notifyPath, 1)
        setenv("WATCHDOG_USEC", "400000", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        defer { unsetenv("NOTIFY_SOCKET"); unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID") }
        let running = try RunningDaemon(directory: dir)
        XCTAssertEqual(try running.client.send(.ping), .ok())
        usleep(1_100_000)
        running.stop()
        var pings = 0
        while case .packet(let bytes, _) = UnixSocket.receivePacket(receiver, capacity: 512, flags: Int32(MSG_DONTWAIT)) {
            if String(decoding: bytes, as: UTF8.self) == "WATCHDOG=1" { pings += 1 }
        }
        // At start, then every 200 ms for about 1.1 s: 6 or 7 (never 3, the full interval's count).
        XCTAssertTrue((5...8).contains(pings), "\(pings) WATCHDOG=1 in 1.1 s at WATCHDOG_USEC=400000")
    }

    private func waitUntil(timeout: TimeInterval = 2, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() && Date() < deadline { usleep(5000) }
        return condition()
    }
}
