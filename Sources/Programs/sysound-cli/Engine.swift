#if canImport(Glibc)
import Glibc
#endif
import SysoundCLIOptions
import SysoundClient
import SysoundCore

/// The `sysound-engine` executable: found beside `sysound-cli` (or through
/// SYSOUND_ENGINE), started for what needs the engines in-process.
enum Engine {
    /// Where the engine executable is (see `CompanionExecutable.find`).
    static func path() throws(CLIFailure) -> String {
        do {
            return try CompanionExecutable.find("sysound-engine", variable: "SYSOUND_ENGINE")
        } catch {
            throw CLIFailure(code: .internal, message: error.description)
        }
    }

    /// Runs the engine with `arguments`, its standard error shared with ours,
    /// and parses the reply it prints on standard output.
    static func run(_ arguments: [String]) throws(CLIFailure) -> Reply {
        let path = try path()
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw CLIFailure(code: .internal, message: "pipe failed: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        var pid = pid_t()
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(pipe[1])
        guard spawned == 0 else {
            close(pipe[0])
            throw CLIFailure(code: .internal, message: "cannot start \(path): \(String(cString: strerror(spawned)))")
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
            if n > 0 { output += chunk[..<n] } else if n == 0 || errno != EINTR { break }
        }
        close(pipe[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if output.last == 0x0A { output.removeLast() }
        do {
            return try Reply(parsing: output)
        } catch {
            let how = (status & 0x7f) == 0 ? "exit status \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
            throw CLIFailure(code: .internal, message: "sysound-engine gave no reply (\(how))")
        }
    }

    /// Replaces this process with the engine (serve, check), keeping our arguments.
    static func exec(_ arguments: [String]) throws(CLIFailure) -> Never {
        let path = try path()
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        throw CLIFailure(code: .internal, message: "cannot start \(path): \(String(cString: strerror(errno)))")
    }
}
