import Foundation

/// A child process started with posix_spawn and reaped with waitpid.
///
/// Not Foundation's `Process`: it treats the close of an inherited descriptor
/// as the child's exit and then blocks in waitpid. `sysound` execs
/// `sysound-cli`, `serve` and `check` exec `sysound-engine`, and pulse-ctl
/// leaves a server and a recorder behind, so that close comes early or the
/// wait never ends.
package final class Spawned: @unchecked Sendable {
    /// Where the child's standard output and error go.
    package enum Output: Sendable {
        /// Into pipes read by two threads: `stdout`, `stderr`.
        case capture
        /// Both to /dev/null (for children that leave daemons holding them).
        case discard
        /// Both appended to a file, created if missing.
        case append(to: String)
    }

    /// What a finished child said.
    package struct Result: Sendable {
        package var status: Int32
        package var stdout: String
        package var stderr: String
        /// Whether the child was killed for outliving its timeout.
        package var timedOut: Bool
        package var output: String { stdout + stderr }
    }

    package let pid: pid_t
    /// Guards `status` and `timedOut`: the child is reaped only under it, so
    /// a timeout's kill cannot reach a reused PID.
    private let lock = NSLock()
    private var status: Int32?
    private var timedOut = false
    private let output = Buffer()
    private let errorOutput = Buffer()
    private let readers = DispatchGroup()

    /// Starts `path` with `arguments` (posix_spawn), environment inherited.
    /// - Parameter input: written to the child's standard input, which is then
    ///   closed; without it standard input is /dev/null.
    package init(_ path: String, _ arguments: [String], input: Data? = nil, output mode: Output = .capture) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1], inPipe: [Int32] = [-1, -1]
        switch mode {
        case .capture:
            guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw FixtureError("pipe failed: errno \(errno)") }
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
            for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        case .discard:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .append(let file):
            posix_spawn_file_actions_addopen(&actions, 1, file, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        if input != nil {
            guard pipe(&inPipe) == 0 else { throw FixtureError("pipe failed: errno \(errno)") }
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
            posix_spawn_file_actions_addclose(&actions, inPipe[0])
            posix_spawn_file_actions_addclose(&actions, inPipe[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        // Only 0, 1 and 2 go to the child. Anything else this process holds
        // without CLOEXEC (a sanitizer's symbolizer pipes, its report file)
        // would live on in what the child leaves running (pulse-ctl's new
        // PulseAudio and recorder), and `swift test` would wait forever for
        // the end of the test runner's output.
        guard Self.closeFrom(&actions, 3) == 0 else { throw FixtureError("posix_spawn_file_actions_addclosefrom_np failed") }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard result == 0 else {
            for fd in outPipe + errPipe + inPipe where fd >= 0 { close(fd) }
            throw FixtureError("cannot start \(path): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        if let input {
            close(inPipe[0])
            input.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(inPipe[1], raw.baseAddress! + offset, raw.count - offset)
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { break }
                }
            }
            close(inPipe[1])
        }
        if case .capture = mode {
            close(outPipe[1])
            close(errPipe[1])
            for (fd, sink) in [(outPipe[0], self.output), (errPipe[0], errorOutput)] {
                readers.enter()
                let readers = readers
                Thread.detachNewThread {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let n = read(fd, &buffer, buffer.count)
                        if n > 0 { sink.append(buffer[..<n]) } else if n < 0 && errno == EINTR { continue } else { break }
                    }
                    close(fd)
                    readers.leave()
                }
            }
        }
    }

    /// Starts `path`, waits for it and returns what it said. After `timeout`
    /// seconds it gets SIGTERM (and the result says it timed out).
    package static func run(_ path: String, _ arguments: [String], input: Data? = nil, timeout: Double = 30) throws -> Result {
        let child = try Spawned(path, arguments, input: input)
        let status = child.wait(timeout: timeout)
        return Result(status: status, stdout: child.stdout, stderr: child.stderr, timedOut: child.didTimeOut)
    }

    /// Whether the child has not exited yet (reaps it if it has: waitpid WNOHANG).
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which the
    /// Swift Glibc module does not declare: looked up with `dlsym`.
    private static let closeFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    package var isRunning: Bool {
        lock.withLock {
            if status != nil { return false }
            var s: Int32 = 0
            if waitpid(pid, &s, WNOHANG) == pid { status = s; return false }
            return true
        }
    }

    /// Waits for the child and returns its exit status (128 + signal if killed).
    /// With a timeout, sends it `signal` once that many seconds have passed.
    @discardableResult
    package func wait(timeout: Double? = nil, then signal: Int32 = SIGTERM) -> Int32 {
        let timer = timeout.map { seconds in
            let item = DispatchWorkItem { [weak self] in
                guard let self else { return }
                lock.withLock {
                    guard status == nil else { return }
                    timedOut = true
                    kill(pid, signal)
                }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
            return item
        }
        // waitid with WNOWAIT leaves the zombie (and so the PID) in place until
        // it is reaped under the lock.
        var info = siginfo_t()
        while lock.withLock({ status == nil }) && waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        lock.withLock {
            if status == nil {
                var s: Int32 = 0
                while waitpid(pid, &s, 0) < 0 && errno == EINTR {}
                status = s
            }
        }
        timer?.cancel()
        readers.wait()
        let s = lock.withLock { status! }
        return (s & 0x7f) == 0 ? (s >> 8) & 0xff : 128 + (s & 0x7f)
    }

    /// Whether a `wait(timeout:)` had to signal the child.
    package var didTimeOut: Bool { lock.withLock { timedOut } }

    /// kill(2) with `sig`, unless the child has been reaped already.
    package func signal(_ sig: Int32) {
        lock.withLock { if status == nil { kill(pid, sig) } }
    }

    /// What the child wrote so far (`.capture` only).
    package var stdout: String { output.text }
    package var stderr: String { errorOutput.text }

    /// Bytes a reader thread collects.
    final class Buffer: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        func append(_ more: ArraySlice<UInt8>) { lock.withLock { bytes += more } }
        var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
    }
}
