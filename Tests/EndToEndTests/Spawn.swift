import Foundation

/// Starts processes with posix_spawn and reaps them with waitpid.
///
/// Foundation's `Process` treats the close of an inherited descriptor as the
/// child's exit and then blocks in waitpid; `sysound serve` and `check` exec
/// `sysound-engine`, which closes it while the process lives on, so the
/// tests use this instead.
final class Spawned: @unchecked Sendable {
    let pid: pid_t
    private var status: Int32?
    private let output = Buffer()
    private let errorOutput = Buffer()
    private let done = DispatchGroup()

    /// - Parameters:
    ///   - input: written to the child's standard input, which is then closed.
    ///   - capture: collect standard output and error (else they go to `log`, or are inherited).
    init(_ path: String, _ arguments: [String], input: Data? = nil, capture: Bool = true, log: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1], inPipe: [Int32] = [-1, -1]
        if capture {
            guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw FixtureError("pipe failed") }
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
            for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        } else if let log {
            posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        if input != nil {
            guard pipe(&inPipe) == 0 else { throw FixtureError("pipe failed") }
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
            posix_spawn_file_actions_addclose(&actions, inPipe[0])
            posix_spawn_file_actions_addclose(&actions, inPipe[1])
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard result == 0 else { throw FixtureError("cannot start \(path): \(String(cString: strerror(result)))") }
        self.pid = pid
        if let input {
            close(inPipe[0])
            input.withUnsafeBytes { _ = write(inPipe[1], $0.baseAddress, $0.count) }
            close(inPipe[1])
        }
        if capture {
            close(outPipe[1])
            close(errPipe[1])
            let output = output, errorOutput = errorOutput, done = done
            for (fd, sink) in [(outPipe[0], output), (errPipe[0], errorOutput)] {
                done.enter()
                Thread.detachNewThread {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let n = read(fd, &buffer, buffer.count)
                        if n > 0 { sink.append(buffer[..<n]) } else if n < 0 && errno == EINTR { continue } else { break }
                    }
                    close(fd)
                    done.leave()
                }
            }
        }
    }

    var isRunning: Bool {
        if status != nil { return false }
        var s: Int32 = 0
        if waitpid(pid, &s, WNOHANG) == pid { status = s; return false }
        return true
    }

    /// Waits for the child and returns its exit status (128 + signal if killed).
    @discardableResult
    func wait() -> Int32 {
        if status == nil {
            var s: Int32 = 0
            while waitpid(pid, &s, 0) < 0 && errno == EINTR {}
            status = s
        }
        done.wait()
        let s = status!
        return (s & 0x7f) == 0 ? (s >> 8) & 0xff : 128 + (s & 0x7f)
    }

    func signal(_ sig: Int32) { kill(pid, sig) }

    var stdout: String { output.text }
    var stderr: String { errorOutput.text }

    /// Bytes a reader thread collects.
    final class Buffer: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        func append(_ more: ArraySlice<UInt8>) { lock.withLock { bytes += more } }
        var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
    }
}
