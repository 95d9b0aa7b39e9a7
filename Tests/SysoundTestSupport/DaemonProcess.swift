import Foundation
import SysoundClient
import SysoundCore

/// A real `sysound serve` in a subprocess with its own private directory
/// (`<tmp>/sysound-rel-*`: the state directory `state`, the log `daemon.log`,
/// optionally the configuration `sysound.toml`).
package final class DaemonProcess {
    package let root: String
    package let stateDir: String
    package let logPath: String
    package let configPath: String?
    /// More options for `serve`, after the fixture's own.
    package let arguments: [String]
    /// Run the daemon (root here) without CAP_DAC_OVERRIDE and
    /// CAP_DAC_READ_SEARCH (setpriv's bounding set), so that a mode-000 file
    /// is unreadable to it as to any user.
    package let withoutFileOverride: Bool
    /// Run the daemon (root here) as user `nobody` (setpriv), with its own
    /// directory as HOME and XDG_RUNTIME_DIR: a desktop's plain user, who may
    /// not set real-time scheduling itself.
    package let asPlainUser: Bool
    /// A cgroup directory (v1 or v2) the daemon is started in (its shell
    /// writes itself into `cgroup.procs`, then execs the daemon).
    package let cgroup: String?
    /// Follow the desktop's settings in the fixture's private dconf
    /// (DesktopSettingsTests). Otherwise the daemon's GSettings are in
    /// memory: a test that turns silent mode on (which the daemon writes to
    /// feedbackd's profile) leaves nothing behind for the next one.
    package let desktopSettings: Bool
    /// More environment for the daemon (e.g. FEEDBACK_THEME).
    package let environment: [String: String]
    package private(set) var process: Spawned?

    /// - Parameter config: TOML text for `--config`; `@ROOT@` is replaced by
    ///   this fixture's private directory and `@SOUNDS@` by the package's Sounds/.
    /// - Parameter start: start now and wait until it answers (else call `start()`).
    package init(
        config: String? = nil, arguments: [String] = [], start: Bool = true, withoutFileOverride: Bool = false, asPlainUser: Bool = false,
        cgroup: String? = nil, desktopSettings: Bool = false, environment: [String: String] = [:]
    ) throws {
        self.arguments = arguments
        self.desktopSettings = desktopSettings
        self.environment = environment
        self.cgroup = cgroup
        self.withoutFileOverride = withoutFileOverride
        self.asPlainUser = asPlainUser
        root = NSTemporaryDirectory() + "sysound-rel-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: asPlainUser ? 0o777 : 0o755])
        stateDir = root + "/state"
        logPath = root + "/daemon.log"
        if let config {
            let path = root + "/sysound.toml"
            let text = config.replacingOccurrences(of: "@ROOT@", with: root)
                .replacingOccurrences(of: "@SOUNDS@", with: TestPaths.packageRoot + "/Sounds")
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            configPath = path
        } else {
            configPath = nil
        }
        guard start else { return }
        do { try self.start() } catch {
            stop()  // a daemon that never answered, and the directory, must not outlive the test
            throw error
        }
    }

    /// Starts `sysound serve` (output appended to the log) and waits up to 15 s
    /// for it to answer a ping; throws with the log's tail if it exits or does not.
    package func start() throws {
        var command = [try TestPaths.sysound, "serve", "--state-dir", stateDir, "--input-dir", root + "/no-input"]
        if let configPath { command += ["--config", configPath] }
        command += arguments
        var environment = environment
        if !desktopSettings { environment["GSETTINGS_BACKEND"] = "memory" }
        if !environment.isEmpty {
            command = ["/usr/bin/env"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + command
        }
        if withoutFileOverride && getuid() == 0 {
            command = ["/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] + command
        }
        if asPlainUser {
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
                       "/usr/bin/env", "HOME=\(root)", "XDG_RUNTIME_DIR=\(root)"] + command
        }
        if let cgroup {
            command = ["/bin/sh", "-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\"", cgroup] + command
        }
        let process = try Spawned(command[0], Array(command.dropFirst()), output: .append(to: logPath))
        self.process = process
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if !process.isRunning { throw FixtureError("sysound serve exited \(process.wait()): \(log(tail: 20))") }
            if (try? client.send(.ping))?.isOK == true { return }
            usleep(20_000)
        }
        let tail = log(tail: 20)
        process.signal(SIGKILL)
        process.wait()
        throw FixtureError("sysound serve did not answer within 15 s: \(tail)")
    }

    package var client: DaemonClient { DaemonClient(stateDirectory: stateDir, timeoutMilliseconds: 5000) }
    /// The CLI on this daemon's state directory.
    package var cli: CLI { CLI(stateDir: stateDir) }
    package var socketPath: String { stateDir + "/socket" }
    package var pid: pid_t { process?.pid ?? 0 }
    package var isRunning: Bool { process?.isRunning ?? false }

    package func signal(_ sig: Int32) { process?.signal(sig) }

    /// The log's last `lines` lines.
    package func log(tail lines: Int = 1000) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// The daemon's resident set size in KiB (/proc/PID/status VmRSS).
    package func rssKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }

    /// SIGTERM and wait (SIGKILL after 10 s); the private directory stays.
    /// Returns the exit status (0 if never started).
    @discardableResult
    package func terminate() -> Int32 {
        guard let process else { return 0 }
        process.signal(SIGTERM)
        return process.wait(timeout: 10, then: SIGKILL)
    }

    /// `terminate()`, then remove the private directory unless SYSOUND_KEEP_LOGS
    /// is set; returns the exit status.
    @discardableResult
    package func stop() -> Int32 {
        let status = terminate()
        // A sanitizer build exits non-zero after a report; keep what it said.
        if status != 0 {
            print("sysound serve exited \(status); its log:\n\(log(tail: 400))")
        }
        if ProcessInfo.processInfo.environment["SYSOUND_KEEP_LOGS"] == nil {
            try? FileManager.default.removeItem(atPath: root)
        }
        return status
    }

    /// Sends one raw datagram on a fresh SOCK_SEQPACKET connection (socket,
    /// connect, send) and closes it at once without reading the reply.
    package func sendAndHangUp(_ text: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket failed: errno \(errno)") }
        defer { close(fd) }
        let path = socketPath
        let ok = UnixSocket.withAddress(path) { connect(fd, $0, $1) }
        guard ok == 0 else { throw FixtureError("connect to \(path) failed: errno \(errno)") }
        _ = text.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
    }
}
