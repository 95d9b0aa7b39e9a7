import Glibc
import SysoundCore

/// Why the bench could not go on.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Every child process the bench started, so that all of them are stopped
/// by PID at the end — also when a figure fails or the bench is interrupted.
enum Children {
    private static let pids = Locked<Set<pid_t>>([])

    /// Starts `path` with `arguments` (`posix_spawn`). stdin, stdout and
    /// stderr are the `stdin`/`stdout`/`stderr` descriptors, or /dev/null.
    /// The child gets the default signal mask and dispositions back (the
    /// bench blocks SIGINT/SIGTERM for its signal thread).
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                      stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The embedded engines of figures 2 and 3 mark this process's PulseAudio
        // clients (PULSE_PROP, for PipeWire's pulse.rules); the tools and
        // recorders compared with them must not inherit the mark.
        let environment = environment ?? (getenv("PULSE_PROP") == nil ? nil : currentEnvironment().filter { $0.key != "PULSE_PROP" })
        let envList: [UnsafeMutablePointer<CChar>?]? = environment.map { env in
            env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { envList?.forEach { free($0) } }
        var pid: pid_t = 0
        let rc: Int32 = argv.withUnsafeBufferPointer { a in
            if let envList {
                return envList.withUnsafeBufferPointer { e in posix_spawn(&pid, path, &actions, &attr, a.baseAddress!, e.baseAddress!) }
            }
            return posix_spawn(&pid, path, &actions, &attr, a.baseAddress!, environ)
        }
        guard rc == 0 else { throw BenchError("cannot start \(path): \(String(cString: strerror(rc)))") }
        pids.withLock { _ = $0.insert(pid) }
        return pid
    }

    /// Waits for `pid` to exit and returns its wait status (`waitpid`).
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        pids.withLock { _ = $0.remove(pid) }
        return status
    }

    /// Whether `pid` has exited (reaps it if so).
    static func hasExited(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        let rc = waitpid(pid, &status, WNOHANG)
        if rc == pid || (rc < 0 && errno == ECHILD) {
            pids.withLock { _ = $0.remove(pid) }
            return true
        }
        return false
    }

    /// SIGTERM, up to `grace` seconds to exit, then SIGKILL; reaps the child.
    static func stop(_ pid: pid_t, grace: Double = 3) {
        guard pids.withLock({ $0.contains(pid) }) else { return }
        kill(pid, SIGTERM)
        let deadline = Clock.now() + UInt64(grace * 1e9)
        while Clock.now() < deadline {
            if hasExited(pid) { return }
            usleep(5_000)
        }
        kill(pid, SIGKILL)
        wait(pid)
    }

    /// Stops every child still running.
    static func stopAll() {
        for pid in pids.withLock({ Array($0) }) { stop(pid) }
    }

    /// SIGKILL to every child, without waiting: for the signal path, where
    /// the process is about to exit.
    static func killAll() {
        for pid in pids.withLock({ Array($0) }) { kill(pid, SIGKILL) }
    }

    /// Blocks SIGINT and SIGTERM in every thread and takes them on one thread
    /// (`sigwait`) that stops the children and exits 130; SIGPIPE is ignored
    /// (a daemon that went away must not kill the bench). A bench started in
    /// the background of a script (Tests/bench/run.sh's smoke run) inherits
    /// SIGINT ignored, which would discard a Ctrl-C before `sigwait` sees it:
    /// both get their default action back first.
    static func handleSignals() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        startThread {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            sigaddset(&set, SIGTERM)
            var sig: Int32 = 0
            sigwait(&set, &sig)
            printErr("sysound-bench: signal \(sig): stopping what it started")
            Children.killAll()
            _exit(130)
        }
    }
}

/// Runs `body` on a new detached pthread.
func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed: \(rc)")
    pthread_detach(thread)
}

/// A pthread that can be joined.
final class JoinableThread: @unchecked Sendable {
    private var thread = pthread_t()
    init(_ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }
    func join() { pthread_join(thread, nil) }
}

func printErr(_ text: String) {
    var line = Array((text + "\n").utf8)
    _ = line.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

/// The process environment as a dictionary.
func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
        let pair = String(cString: entry)
        if let eq = pair.firstIndex(of: "=") { result[String(pair[..<eq])] = String(pair[pair.index(after: eq)...]) }
        p += 1
    }
    return result
}

/// Runs a command to completion and returns its stdout (for `pactl`, `lscpu`).
func runCapturing(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let fds = try makePipe()
    let pid: pid_t
    do {
        pid = try Children.spawn(path, arguments, stdout: fds[1], stderr: fds[1])
    } catch {
        close(fds[0]); close(fds[1])
        throw error
    }
    close(fds[1])
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
        if n > 0 { bytes += buffer[..<n] } else if n < 0 && errno == EINTR { continue } else { break }
    }
    close(fds[0])
    let status = Children.wait(pid)
    return (status, String(decoding: bytes, as: UTF8.self))
}

/// Exit code of a wait status, or 128+signal.
func exitCode(_ status: Int32) -> Int32 {
    (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

/// A pipe whose ends are close-on-exec (`pipe` + `fcntl`): children get only
/// the end that posix_spawn dup2s onto their stdout.
func makePipe() throws -> [Int32] {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw BenchError("pipe failed: errno \(errno)") }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return fds
}
