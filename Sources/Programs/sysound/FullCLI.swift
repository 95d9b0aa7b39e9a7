import Glibc
import SysoundClient

/// The full CLI (`sysound-cli`, swift-argument-parser): help, every command
/// but `play NAME`. `sysound` becomes it with `execv(3)` — same process,
/// same argv and descriptors — so its messages and exit codes are exactly
/// the full CLI's.
enum FullCLI {
    static func become() -> Never {
        // argv as we got it, argv[0] included: `ps` shows `sysound status`.
        Companion.become("sysound-cli", variable: "SYSOUND_CLI", argv: CommandLine.unsafeArgv)
    }
}

/// `sysound play NAME` without a daemon: this process becomes `sysound-play`
/// (execv, argv as we got it: `ps` shows `sysound play tap`), the embedded
/// engine with the CLI's messages and exit statuses. Through the full CLI it
/// would be two more executables started — `sysound-cli`, which then spawns
/// the engine — for the same request: the larger part of the time to the
/// first sample.
enum EmbeddedPlay {
    static func become() -> Never {
        Companion.become("sysound-play", variable: "SYSOUND_PLAY", argv: CommandLine.unsafeArgv)
    }
}

/// Replaces this process with a companion executable (found beside `sysound`,
/// in libexec, or through `variable`); exits 70 if it cannot.
enum Companion {
    static func become(_ name: String, variable: String, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Never {
        become(find(name, variable: variable), argv: argv)
    }

    private static func find(_ name: String, variable: String) -> String {
        do {
            return try CompanionExecutable.find(name, variable: variable)
        } catch {
            standardError("sysound: \(error.description)")
            exit(EX_SOFTWARE)
        }
    }

    private static func become(_ path: String, argv: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Never {
        execv(path, argv)
        standardError("sysound: cannot start \(path): \(String(cString: strerror(errno)))")
        exit(EX_SOFTWARE)
    }
}
