import CSysoundShims
import Glibc
import Logging
import SysoundClient
import SysoundCore
import SysoundState

/// How the daemon's socket side behaves.
public struct DaemonOptions: Sendable {
    /// The state directory; it must exist (SysoundState prepares it). The socket
    /// is `socket` in it, the instance lock `daemon.lock`.
    public var stateDirectory: String
    /// A group (name or gid) whose members may use the daemon besides its user and root.
    public var allowedGroup: String?
    /// Connections served at once; more are refused with `error busy`.
    public var maximumConnections = 256
    /// How often the socket file is checked for deletion.
    public var socketCheckIntervalMilliseconds = 1000
    /// How long `stop` waits for requests in flight.
    public var shutdownGraceMilliseconds = 3000
    /// Use a socket passed by systemd (LISTEN_FDS) instead of binding one.
    public var acceptSystemdSockets = true
    /// Handle SIGTERM/SIGINT (stop) and SIGHUP (reload) while `run` runs.
    public var handleSignals = true
    /// Where passed sockets start: 3 (SD_LISTEN_FDS_START); tests use a free one.
    var firstPassedFD = SystemdIntegration.firstPassedFD

    public init(stateDirectory: String, allowedGroup: String? = nil) {
        self.stateDirectory = stateDirectory
        self.allowedGroup = allowedGroup
    }

    public var socketPath: String { stateDirectory + "/socket" }
    public var lockPath: String { stateDirectory + "/daemon.lock" }
}

/// The daemon's socket machinery: one instance per state directory, the
/// listening socket (its own or systemd's), the event loop, signals.
///
/// ```swift
/// let daemon = try Daemon(options: .init(stateDirectory: dir.path), handler: manager, logger: logger)
/// daemon.run()   // until SIGTERM, SIGINT or daemon.stop()
/// ```
public final class Daemon: @unchecked Sendable {
    // @unchecked: `ran` is guarded by `stateLock`; the rest is immutable or
    // used by the `run` thread only; `stop` only writes to the wake pipe.
    public let options: DaemonOptions
    private let handler: any RequestHandler
    private let logger: Logger
    private let server: SocketServer
    private let instanceLock: InstanceLock
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stateLock = PthreadLock()
    private var ran = false
    private var released = false
    private var reloading = false

    private static let stopByte: UInt8 = 0
    private static let handledSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// Takes the instance lock and the listening socket; `run` then serves.
    ///
    /// - Throws: `DaemonError`, e.g. `.alreadyRunning` naming the running daemon's PID.
    public init(options: DaemonOptions, handler: any RequestHandler, logger: Logger) throws(DaemonError) {
        self.options = options
        self.handler = handler
        self.logger = logger
        let group = try options.allowedGroup.map { (name) throws(DaemonError) in try PeerAccess.groupID(named: name) }
        // The group's members must be able to reach the socket through the state directory.
        do {
            try StateDirectory(path: options.stateDirectory).share(withGroup: group)
        } catch {
            throw .activation(error.description)
        }
        instanceLock = try InstanceLock(path: options.lockPath, socketPath: options.socketPath)
        let listener: ListeningSocket
        do {
            listener = try Self.listener(options: options, group: group, logger: logger)
        } catch {
            instanceLock.release()
            throw error
        }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            let code = errno
            listener.close()
            instanceLock.release()
            throw .system(call: "pipe", errno: code)
        }
        // Non-blocking both ways: a signal handler must never block on a full pipe.
        for fd in pipeFDs {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]
        server = SocketServer(
            listener: listener, handler: handler, access: PeerAccess(allowedGroup: group), options: options, logger: logger)
    }

    deinit {
        // A daemon that never ran still holds its socket and lock.
        if !ran { release() }
    }

    /// The socket clients connect to.
    public var socketPath: String { server.socketPath }

    /// Serves until SIGTERM, SIGINT or `stop()`; then finishes the replies in
    /// flight, removes the socket and the lock, and returns. Call once.
    public func run() {
        let first = stateLock.withLock { () -> Bool in
            defer { ran = true }
            return !ran
        }
        precondition(first, "Daemon.run() called twice")
        if options.handleSignals {
            if sysound_forward_signals(wakeWrite, Self.handledSignals, Int32(Self.handledSignals.count)) != 0 {
                logger.error("cannot install signal handlers: \(UnixSocket.errorText(errno)); use stop()")
            }
        }
        logger.info("serving on \(socketPath) (pid \(getpid()))")
        SystemdIntegration.notify("READY=1\nMAINPID=\(getpid())")
        loop()
        SystemdIntegration.notify("STOPPING=1")
        logger.info("stopping: finishing requests in flight")
        if options.handleSignals { sysound_restore_signals(Self.handledSignals, Int32(Self.handledSignals.count)) }
        release()
        logger.info("stopped")
    }

    /// Asks `run` to return; safe from any thread, returns at once.
    public func stop() {
        // Under the lock: once released, the pipe's descriptor number may
        // already belong to someone else.
        stateLock.withLock {
            guard !released else { return }
            var byte = Self.stopByte
            _ = write(wakeWrite, &byte, 1)
        }
    }

    private func loop() {
        var fds = [
            pollfd(fd: server.listenerFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        let interval = max(options.socketCheckIntervalMilliseconds, 10)
        var lastCheck = Self.nowMilliseconds()
        var lockMissing = false
        while true {
            fds[0].fd = server.listenerFD
            fds[0].revents = 0
            fds[1].revents = 0
            let rc = poll(&fds, nfds_t(fds.count), Int32(interval))
            if rc < 0 && errno != EINTR {
                logger.critical("poll failed: \(UnixSocket.errorText(errno)); stopping")
                return
            }
            if fds[1].revents & Int16(POLLIN) != 0, handleWakeBytes() { return }
            if fds[0].revents & Int16(POLLIN) != 0 { server.acceptPending() }
            let now = Self.nowMilliseconds()
            if now - lastCheck >= interval {
                lastCheck = now
                guard checkLockFile(&lockMissing) else { return }
                server.checkSocketFile()
            }
        }
    }

    /// Takes the instance lock again if its file was removed (say, with the
    /// whole state directory), so no second daemon can start on the directory;
    /// false means another daemon took it first and this one must stop.
    /// A lock that cannot be taken yet is logged once (`missing`), then retried.
    private func checkLockFile(_ missing: inout Bool) -> Bool {
        switch instanceLock.reclaimIfRemoved() {
        case .intact:
            return true
        case .reclaimed:
            logger.notice("\(instanceLock.path) was removed; locked it again")
        case .takenOver(let pid):
            logger.critical("another sysound daemon\(pid.map { " (PID \($0))" } ?? "") locked \(instanceLock.path) after its file was removed; stopping so that one daemon serves \(options.stateDirectory)")
            return false
        case .failed(let code):
            if !missing { logger.warning("\(instanceLock.path) was removed and cannot be created again yet: \(UnixSocket.errorText(code)); retrying") }
            missing = true
            return true
        }
        missing = false
        return true
    }

    /// Reads signal numbers and stop requests from the wake pipe; true means stop.
    private func handleWakeBytes() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64)
        var stop = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(wakeRead, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            for byte in buffer[..<n] {
                switch Int32(byte) {
                case Int32(Self.stopByte): stop = true
                case SIGTERM, SIGINT:
                    logger.info("received \(byte == SIGTERM ? "SIGTERM" : "SIGINT")")
                    stop = true
                case SIGHUP: reload()
                default: break
                }
            }
        }
        return stop
    }

    /// Runs the handler's reload on its own thread so accepting goes on; a
    /// SIGHUP during a reload is folded into it.
    private func reload() {
        let start = stateLock.withLock { () -> Bool in
            defer { reloading = true }
            return !reloading
        }
        guard start else { return logger.info("SIGHUP during a reload: ignored") }
        logger.info("SIGHUP: reloading configuration and theme")
        startThread(name: "sysound-reload") { [self] in
            do {
                try handler.reload()
                logger.info("reloaded configuration and theme")
            } catch {
                logger.error("reload failed, keeping the old configuration: \(error)")
            }
            stateLock.withLock { reloading = false }
        }
    }

    private func release() {
        server.shutdown()
        stateLock.withLock {
            released = true
            UnixSocket.close(wakeRead)
            UnixSocket.close(wakeWrite)
        }
        instanceLock.release()
    }

    /// systemd's socket if one was passed, else a new one; refuses if another
    /// process answers on the socket path despite the lock (an old daemon whose
    /// lock file was removed).
    private static func listener(options: DaemonOptions, group: gid_t?, logger: Logger) throws(DaemonError) -> ListeningSocket {
        if options.acceptSystemdSockets {
            let passed = SystemdIntegration.takePassedSockets(firstFD: options.firstPassedFD)
            if let fd = passed.first {
                if passed.count > 1 { logger.warning("systemd passed \(passed.count) sockets; using fd \(fd) only") }
                let socket = try ListeningSocket.adopt(fd: fd)
                logger.info("using the socket systemd passed (\(socket.path.isEmpty ? "fd \(fd)" : socket.path))")
                return socket
            }
        }
        if let pid = answeringPeer(at: options.socketPath) {
            throw .alreadyRunning(pid: pid, lockPath: options.lockPath, socketPath: options.socketPath)
        }
        return try ListeningSocket.bind(path: options.socketPath, group: group)
    }

    /// The PID of whoever accepts connections at `path` (SO_PEERCRED of a test
    /// connection), nil if nobody does.
    private static func answeringPeer(at path: String) -> pid_t? {
        let fd = UnixSocket.seqpacket()
        guard fd >= 0 else { return nil }
        defer { UnixSocket.close(fd) }
        UnixSocket.setTimeout(fd, milliseconds: 200)
        guard UnixSocket.withAddress(path, { connect(fd, $0, $1) }) == 0 else { return nil }
        return PeerIdentity.credentials(of: fd)?.pid
    }

    private static func nowMilliseconds() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts.tv_sec * 1000 + ts.tv_nsec / 1_000_000
    }
}
