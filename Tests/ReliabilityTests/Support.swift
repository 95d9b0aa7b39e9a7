import Foundation
import SysoundClient
import SysoundCore
import XCTest

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The PulseAudio fixture's environment (Tests/fixture/with-pulse.sh); skips
/// the test without it, or fails when SYSOUND_REQUIRE_PULSE=1 (CI).
enum Pulse {
    static var env: [String: String] { ProcessInfo.processInfo.environment }

    static func require() throws {
        guard env["SYSOUND_MONITOR_FILE"] != nil, env["PULSE_SERVER"] != nil else {
            if env["SYSOUND_REQUIRE_PULSE"] == "1" {
                throw FixtureError("SYSOUND_REQUIRE_PULSE=1 but no PulseAudio fixture: run under Tests/fixture/with-pulse.sh")
            }
            throw XCTSkip("no PulseAudio fixture; run under Tests/fixture/with-pulse.sh")
        }
    }

    /// `$SYSOUND_PULSE_CTL stop|start`: the server goes away / comes back at the same address.
    static func control(_ verb: String) throws {
        guard let ctl = env["SYSOUND_PULSE_CTL"] else { throw FixtureError("SYSOUND_PULSE_CTL is not set") }
        // posix_spawn + waitpid, output to /dev/null: the server and recorder
        // it starts in the background outlive it, and Foundation's Process
        // then never sees the script end (waitUntilExit hangs).
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(ctl), strdup(verb), nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&pid, ctl, &actions, nil, argv, environ) == 0 else { throw FixtureError("cannot run \(ctl)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw FixtureError("pulse-ctl \(verb) failed (wait status \(status))") }
    }

    /// The loudest left-channel sample the sink's monitor recorded while
    /// `action` ran and `seconds` after it started.
    static func peak(_ seconds: Double, during action: () throws -> Void = {}) throws -> Float {
        let url = URL(fileURLWithPath: env["SYSOUND_MONITOR_FILE"]!)
        let start = try size(url)
        try action()
        let wanted = UInt64(seconds * 48_000) * 8
        let deadline = Date().addingTimeInterval(seconds + 10)
        while try size(url) - start < wanted {
            guard Date() < deadline else { throw FixtureError("the monitor recorder delivered too little audio") }
            usleep(5_000)
        }
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: start)
        let data = handle.readData(ofLength: Int(wanted))
        return data.withUnsafeBytes { raw in
            let f = raw.bindMemory(to: Float.self)
            return stride(from: 0, to: f.count, by: 2).reduce(Float(0)) { max($0, abs(f[$1])) }
        }
    }

    static func size(_ url: URL) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.uint64Value ?? 0
    }
}

/// Runs programs and the built `sysound` binary.
enum Run {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var output: String { stdout + stderr }
    }

    static var binDir: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    static var sysound: String {
        get throws {
            for dir in [binDir, binDir.deletingLastPathComponent()] {
                let path = dir.appendingPathComponent("sysound").path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
            throw FixtureError("the sysound binary is not built next to the tests; run `swift build --build-tests`")
        }
    }

    static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    @discardableResult
    static func command(_ path: String, _ arguments: [String], timeout: Double = 30) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + timeout)
        timer.setEventHandler { if process.isRunning { process.terminate() } }
        timer.resume()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// A real `sysound serve` in a subprocess with its own state directory
/// (`<tmp>/sysound-rel-*/state`) and, optionally, its own configuration.
final class Daemon {
    let root: String
    let stateDir: String
    let logPath: String
    let configPath: String?
    private(set) var process = Process()

    /// - Parameter config: TOML text for `--config`; `@ROOT@` is replaced by
    ///   this fixture's private directory and `@SOUNDS@` by the package's Sounds/.
    /// - Parameter withoutFileOverride: run the daemon (root here) without
    ///   CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (setpriv's bounding set), so
    ///   that a mode-000 file is unreadable to it as to any user.
    let withoutFileOverride: Bool

    init(config: String? = nil, start: Bool = true, withoutFileOverride: Bool = false) throws {
        self.withoutFileOverride = withoutFileOverride
        root = NSTemporaryDirectory() + "sysound-rel-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        stateDir = root + "/state"
        logPath = root + "/daemon.log"
        if let config {
            configPath = root + "/sysound.toml"
            let text = config.replacingOccurrences(of: "@ROOT@", with: root)
                .replacingOccurrences(of: "@SOUNDS@", with: Run.packageRoot + "/Sounds")
            try text.write(toFile: configPath!, atomically: true, encoding: .utf8)
        } else {
            configPath = nil
        }
        if start { try self.start() }
    }

    func start() throws {
        FileManager.default.createFile(atPath: logPath, contents: nil)
        process = Process()
        var args = [try Run.sysound, "serve", "--state-dir", stateDir, "--input-dir", root + "/no-input"]
        if let configPath { args += ["--config", configPath] }
        if withoutFileOverride && getuid() == 0 {
            args = ["/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] + args
        }
        process.executableURL = URL(fileURLWithPath: args[0])
        process.arguments = Array(args.dropFirst())
        let logHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try logHandle.seekToEnd()
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if !process.isRunning { throw FixtureError("sysound serve exited \(process.terminationStatus): \(self.log(tail: 20))") }
            if (try? client.send(.ping))?.isOK == true { return }
            usleep(20_000)
        }
        throw FixtureError("sysound serve did not answer within 15 s: \(self.log(tail: 20))")
    }

    var client: DaemonClient { DaemonClient(stateDirectory: stateDir, timeoutMilliseconds: 5000) }
    var socketPath: String { stateDir + "/socket" }
    var pid: pid_t { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    func log(tail lines: Int = 1000) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// `sysound ARGS --state-dir DIR`, optionally as another user via setpriv(1).
    @discardableResult
    func cli(_ arguments: [String], as user: User? = nil) throws -> Run.Result {
        let args = arguments + ["--state-dir", stateDir]
        guard let user else { return try Run.command(try Run.sysound, args) }
        return try Run.command("/usr/bin/setpriv", user.setprivArguments + ["--", try Run.sysound] + args)
    }

    /// The daemon's resident set size in KiB (/proc/PID/status VmRSS).
    func rssKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
        return nil
    }

    /// SIGTERM, wait, remove the private directory; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        // A sanitizer build exits non-zero after a report; keep what it said.
        if process.terminationStatus != 0 {
            print("sysound serve exited \(process.terminationStatus); its log:\n\(log(tail: 400))")
        }
        if ProcessInfo.processInfo.environment["SYSOUND_KEEP_LOGS"] == nil {
            try? FileManager.default.removeItem(atPath: root)
        }
        return process.terminationStatus
    }

    /// Polls `condition` every 10 ms until it holds or `timeout` passes.
    static func eventually(_ timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if condition() { return true }
            usleep(10_000)
        } while Date() < deadline
        return condition()
    }
}

/// A config whose theme is the shipped Sounds/ plus a directory of test sounds.
enum Configs {
    static func theme(_ extraDirectory: String? = nil, server: String = "") -> String {
        let paths = ([extraDirectory].compactMap { $0 } + ["@SOUNDS@"]).map { "\"\($0)\"" }.joined(separator: ", ")
        return """
        [theme]
        paths = [\(paths)]
        [xdg]
        fallback = false
        [server]
        \(server)
        """
    }
}

/// Another user for setpriv(1): `nobody`, optionally with supplementary groups.
struct User {
    var uid: uid_t = 65534
    var gid: gid_t = 65534
    var groups: [gid_t] = []

    static let nobody = User()
    static func nobody(inGroup group: gid_t) -> User { User(groups: [group]) }

    var setprivArguments: [String] {
        ["--reuid=\(uid)", "--regid=\(gid)"] + (groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")])
    }
}
