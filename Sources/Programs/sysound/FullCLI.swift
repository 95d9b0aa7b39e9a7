import Glibc
import SysoundClient

/// The full CLI (`sysound-cli`, swift-argument-parser): help, every command,
/// the no-daemon fallback. `sysound` becomes it with `execv(3)` — same
/// process, same argv and descriptors — so its messages and exit codes are
/// exactly the full CLI's.
enum FullCLI {
    /// Replaces this process with `sysound-cli` (found beside `sysound`, in
    /// libexec, or through SYSOUND_CLI); exits 70 if it cannot.
    static func become() -> Never {
        let path: String
        do {
            path = try CompanionExecutable.find("sysound-cli", variable: "SYSOUND_CLI")
        } catch {
            standardError("sysound: \(error.description)")
            exit(EX_SOFTWARE)
        }
        // argv as we got it, argv[0] included: `ps` shows `sysound status`.
        execv(path, CommandLine.unsafeArgv)
        standardError("sysound: cannot start \(path): \(String(cString: strerror(errno)))")
        exit(EX_SOFTWARE)
    }
}

/// `sysound play NAME` without a daemon: this process becomes
/// `sysound-engine play NAME …` (execv), the embedded engine with the CLI's
/// messages and exit statuses. Through the full CLI it would be two more
/// executables started — `sysound-cli`, which then spawns the engine — for
/// the same request: the larger part of the time to the first sample.
enum EmbeddedPlay {
    static func become(_ arguments: [String]) -> Never {
        let path: String
        do {
            path = try CompanionExecutable.find("sysound-engine", variable: "SYSOUND_ENGINE")
        } catch {
            standardError("sysound: \(error.description)")
            exit(EX_SOFTWARE)
        }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        standardError("sysound: cannot start \(path): \(String(cString: strerror(errno)))")
        exit(EX_SOFTWARE)
    }
}
