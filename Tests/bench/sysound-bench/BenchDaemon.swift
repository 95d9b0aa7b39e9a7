import Glibc
import SysoundClient
import SysoundCore

/// A `sysound serve` the bench started, in its own state directory, with
/// NOTIFY_SOCKET pointing at the bench so that its readiness (`READY=1`,
/// sent once the theme is preloaded and the socket listens) is timed exactly.
final class BenchDaemon {
    let pid: pid_t
    let stateDirectory: String
    /// Spawn → READY=1, in seconds.
    let readySeconds: Double
    let logPath: String

    var socketPath: String { stateDirectory + "/socket" }

    /// Starts the daemon and waits until it is ready (at most `timeout` seconds).
    init(binary: String, config: String, workDirectory: String, name: String, environment: [String: String] = [:],
         timeout: Double = 30) throws {
        stateDirectory = workDirectory + "/state-" + name
        logPath = workDirectory + "/daemon-" + name + ".log"
        mkdir(stateDirectory, 0o700)
        let notifyPath = workDirectory + "/notify-" + name
        unlink(notifyPath)
        let notify = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard notify >= 0 else { throw BenchError("socket(AF_UNIX, SOCK_DGRAM) failed: errno \(errno)") }
        defer { close(notify); unlink(notifyPath) }
        guard UnixSocket.withAddress(notifyPath, { bind(notify, $0, $1) }) == 0 else {
            throw BenchError("cannot bind the notify socket \(notifyPath): errno \(errno)")
        }
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { if log >= 0 { close(log) } }
        var env = currentEnvironment()
        env.merge(environment) { $1 }
        env["NOTIFY_SOCKET"] = notifyPath
        let start = Clock.now()
        pid = try Children.spawn(binary, [
            "serve", "--state-dir", stateDirectory, "--config", config, "--input-dir", workDirectory + "/no-input",
        ], environment: env, stdout: log >= 0 ? log : nil, stderr: log >= 0 ? log : nil)
        let deadline = start + UInt64(timeout * 1e9)
        var ready: Double?
        var buffer = [UInt8](repeating: 0, count: 512)
        while ready == nil {
            var p = pollfd(fd: notify, events: Int16(POLLIN), revents: 0)
            _ = poll(&p, 1, 50)
            if p.revents & Int16(POLLIN) != 0 {
                let n = buffer.withUnsafeMutableBytes { recv(notify, $0.baseAddress, $0.count, 0) }
                let now = Clock.now()
                if n > 0, String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").contains("READY=1") {
                    ready = Double(now - start) / 1e9
                }
                continue
            }
            if Children.hasExited(pid) {
                throw BenchError("sysound serve (\(name)) exited before it was ready; its log \(logPath):\n\(Self.tail(logPath))")
            }
            if Clock.now() > deadline {
                Children.stop(pid)
                throw BenchError("sysound serve (\(name)) was not ready within \(Int(timeout)) s; its log:\n\(Self.tail(logPath))")
            }
        }
        readySeconds = ready!
        guard DaemonClient(socketPath: socketPath).isDaemonRunning() else {
            Children.stop(pid)
            throw BenchError("sysound serve (\(name)) said READY=1 but does not answer ping at \(socketPath)")
        }
    }

    /// SIGTERM and wait (SIGKILL after 3 s).
    func stop() { Children.stop(pid) }

    /// Resident memory: VmRSS and RssAnon, in bytes.
    var memory: (rss: Int, anonymous: Int) { ProcFS.memory(of: pid) }

    /// Waits until the daemon's log holds `text` at least `count` times (a
    /// finished preload or reload, which the daemon logs).
    func waitForLog(_ text: String, count: Int = 1, timeout: Double) throws {
        let deadline = Clock.now() + UInt64(timeout * 1e9)
        while (readTextFile(logPath) ?? "").components(separatedBy: text).count - 1 < count {
            guard Clock.now() < deadline else {
                throw BenchError("sysound serve did not log \"\(text)\" \(count) time(s) within \(Int(timeout)) s; its log \(logPath):\n\(Self.tail(logPath))")
            }
            Clock.sleep(seconds: 0.01)
        }
    }

    static func tail(_ path: String) -> String {
        (readTextFile(path) ?? "").split(separator: "\n").suffix(15).joined(separator: "\n")
    }
}

/// A small file's text (`open`/`read`), nil if it cannot be read.
func readTextFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 8192)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 { bytes += buffer[..<n] } else if n < 0 && errno == EINTR { continue } else { break }
    }
    return String(decoding: bytes, as: UTF8.self)
}
