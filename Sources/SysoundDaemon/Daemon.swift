import Glibc
import Logging
import SysoundClient
import SysoundCore
import SysoundPlatform
import SysoundState

/// How the daemon's socket side behaves.
package struct DaemonOptions: Sendable {
    /// The state directory; it must exist (SysoundState prepares it). The socket
    /// is `socket` in it, the instance lock `daemon.lock`.
    package var stateDirectory: String
    /// A group (name or gid) whose members may use the daemon besides its user and root.
    package var allowedGroup: String?
    /// Connections served at once; more are refused with `error busy`.
    package var maximumConnections = 256
    /// How often the socket and lock files are checked for deletion; nil:
    /// never by a timer, only when `checkFiles()` is called (the daemon's
    /// state-directory watch calls it on every change there, so an idle
    /// daemon wakes for nothing).
    package var socketCheckIntervalMilliseconds: Int? = 1000
    /// How long `stop` waits for requests in flight.
    package var shutdownGraceMilliseconds = 3000
    /// Use a socket passed by systemd (LISTEN_FDS) instead of binding one.
    package var acceptSystemdSockets = true
    /// Handle SIGTERM/SIGINT (stop) and SIGHUP (reload) while `run` runs,
    /// from a signalfd: the process must block them in every thread
    /// (`EventLoop.blockSignals` before any thread starts), as `serve` does.
    package var handleSignals = true
    /// Where passed sockets start: 3 (SD_LISTEN_FDS_START); tests use a free one.
    var firstPassedFD: Int32 = 3

    package init(stateDirectory: String, allowedGroup: String? = nil) {
        self.stateDirectory = stateDirectory
        self.allowedGroup = allowedGroup
    }

    package var socketPath: String { stateDirectory + "/socket" }
    package var lockPath: String { stateDirectory + "/daemon.lock" }
}

/// The daemon's socket machinery: one instance per state directory, the
/// listening socket (its own or systemd's), served from an sd-event loop
/// together with the signals, the socket and lock upkeep and the watchdog.
///
/// ```swift
/// let daemon = try Daemon(options: .init(stateDirectory: dir.path), handler: manager, logger: logger)
/// daemon.run()   // until SIGTERM, SIGINT or daemon.stop()
/// ```
package final class Daemon: @unchecked Sendable {
    // @unchecked: `ran` is guarded by `stateLock`; the rest is immutable or
    // used by the loop thread only; `stop` only posts to the loop.
    package let options: DaemonOptions
    /// The loop `run` serves; other parts of the daemon (settings watch,
    /// haptics, D-Bus) add their sources to it.
    package let loop: EventLoop
    /// The fixed worker threads for blocking work.
    package let workers: WorkerPool
    private let ownsWorkers: Bool
    private let handler: any RequestHandler
    private let logger: Logger
    private let server: SocketServer
    private let instanceLock: InstanceLock
    private let stateLock = PthreadLock()
    private var ran = false
    private var released = false
    // Loop thread only:
    private var reloading = false
    private var stopping = false
    /// The lock file was found missing and could not be made again yet (logged once).
    private var lockMissing = false
    private var sources: [EventSource] = []

    private static let handledSignals: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    /// The number of worker threads a daemon makes when it is given none.
    package static let defaultWorkerCount = 4

    /// Takes the instance lock and the listening socket; `run` then serves.
    ///
    /// - Parameters:
    ///   - loop: the loop to serve on (a new one if nil); `run` runs it.
    ///   - workers: the pool blocking work goes to (a new one if nil).
    /// - Throws: `DaemonError`, e.g. `.alreadyRunning` naming the running daemon's PID.
    package init(
        options: DaemonOptions, handler: any RequestHandler, loop: EventLoop? = nil, workers: WorkerPool? = nil,
        logger: Logger
    ) throws(DaemonError) {
        self.options = options
        self.handler = handler
        self.logger = logger
        do throws(EventLoopError) {
            let loop = if let loop { loop } else { try EventLoop() }
            self.loop = loop
            ownsWorkers = workers == nil
            self.workers = if let workers { workers } else {
                try WorkerPool(size: Self.defaultWorkerCount, name: "sysound-worker", loop: loop)
            }
        } catch {
            throw .system(call: error.call, errno: error.errno)
        }
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
        server = SocketServer(
            listener: listener, handler: handler, access: PeerAccess(allowedGroup: group), options: options,
            loop: self.loop, workers: self.workers, logger: logger)
    }

    deinit {
        // A daemon that never ran still holds its socket and lock.
        if !ran { release() }
        if ownsWorkers { workers.shutdown() }
    }

    /// The socket clients connect to.
    package var socketPath: String { server.socketPath }

    /// Serves until SIGTERM, SIGINT or `stop()`; then finishes the replies in
    /// flight, removes the socket and the lock, and returns. Call once, on
    /// the thread that is to run the loop.
    package func run() {
        let first = stateLock.withLock { () -> Bool in
            defer { ran = true }
            return !ran
        }
        precondition(first, "Daemon.run() called twice")
        do {
            try addSources()
        } catch {
            logger.critical("cannot serve: \(error)")
            sources = []
            release()
            return
        }
        logger.info("serving on \(socketPath) (pid \(getpid()))")
        ServiceManager.notify(.ready, .status("serving \(socketPath)"))
        do {
            try loop.run()
        } catch {
            logger.critical("the event loop failed: \(error); stopping")
        }
        sources.forEach { $0.cancel() }
        sources = []
        // The signals stay blocked: unblocking would deliver a second SIGTERM
        // that arrived while stopping, and end the process with it.
        release()
        logger.info("stopped")
    }

    /// Asks `run` to return; safe from any thread, returns at once.
    package func stop() {
        loop.post { [weak self] in self?.beginStopping() }
    }

    private func addSources() throws(EventLoopError) {
        try server.start()
        if options.handleSignals {
            for signal in Self.handledSignals {
                sources.append(try loop.addSignal(signal) { [unowned self] signal in received(signal) })
            }
        }
        if let ms = options.socketCheckIntervalMilliseconds {
            let interval = UInt64(max(ms, 10)) * 1000
            sources.append(try loop.addRepeatingTimer(every: interval, accuracy: .coarse(every: interval)) { [unowned self] _ in checkFiles() })
        }
        if let watchdog = try loop.startWatchdogPings() { sources.append(watchdog) }
    }

    private func received(_ signal: Int32) {
        switch signal {
        case SIGTERM, SIGINT:
            logger.info("received \(signal == SIGTERM ? "SIGTERM" : "SIGINT")")
            beginStopping()
        case SIGHUP:
            reload()
        default:
            break
        }
    }

    /// Stops accepting, lets the requests in flight finish (up to the grace
    /// period), then ends the loop.
    private func beginStopping() {
        guard !stopping else { return }
        stopping = true
        ServiceManager.notify(.stopping)
        logger.info("stopping: finishing requests in flight")
        server.shutdown { [unowned self] in loop.exit() }
        let grace = UInt64(options.shutdownGraceMilliseconds) * 1000
        do {
            sources.append(try loop.addTimer(after: grace, accuracy: .millisecond) { [unowned self] _ in
                let left = server.connectionCount
                if left > 0 { logger.warning("stopping with \(left) request(s) still waiting (e.g. wait=1 for a long sound)") }
                server.abandonConnections()
                loop.exit()
            })
        } catch {
            // Without the grace timer a wait=1 for a looping sound would hold the stop for ever.
            logger.error("no \(options.shutdownGraceMilliseconds) ms grace timer (\(error)); stopping now without waiting for requests in flight")
            server.abandonConnections()
            loop.exit()
        }
    }

    /// Makes the lock and socket files whole again if someone removed or
    /// replaced them (stopping if another daemon took the lock meanwhile).
    /// On the loop thread: from the timer, or from a watch of the state directory.
    package func checkFiles() {
        guard !stopping else { return }
        guard checkLockFile(&lockMissing) else { return beginStopping() }
        server.checkSocketFile()
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

    /// Reloads configuration and theme in the background, so serving goes
    /// on; a SIGHUP during a reload is folded into it.
    private func reload() {
        guard !reloading else { return logger.info("SIGHUP during a reload: ignored") }
        reloading = true
        logger.info("SIGHUP: reloading configuration and theme")
        ServiceManager.notify(.reloading, .status("reloading"))
        let handler = handler
        workers.submitInBackground(logger: logger, { () -> ReloadError? in
            do throws(ReloadError) {
                try handler.reload()
                return nil
            } catch {
                return error
            }
        }, then: { [weak self] error in
            guard let self else { return }
            if let error {
                logger.error("reload failed, keeping the old configuration: \(error)")
            } else {
                logger.info("reloaded configuration and theme")
            }
            reloading = false
            ServiceManager.notify(.ready, .status("serving \(socketPath)"))
        })
    }

    private func release() {
        let first = stateLock.withLock { () -> Bool in
            defer { released = true }
            return !released
        }
        guard first else { return }
        server.abandonConnections()
        server.closeListener()
        instanceLock.release()
    }

    /// systemd's socket if one was passed, else a new one; refuses if another
    /// process answers on the socket path despite the lock (an old daemon whose
    /// lock file was removed).
    private static func listener(options: DaemonOptions, group: gid_t?, logger: Logger) throws(DaemonError) -> ListeningSocket {
        if options.acceptSystemdSockets {
            let passed = ServiceManager.passedSockets(firstFD: options.firstPassedFD)
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
}
