import Glibc
import SysoundClient

/// `sysound serve …` in the shape `ServeArguments` reads, the unit's
/// `ExecStart`: this process becomes `sysound-engine serve` with the same
/// argv. Through the full CLI, which only hands `serve` on, the daemon of a
/// socket-activated session started one executable more (~8 ms on a busy
/// 2-core machine) before the first sound.
enum ServeHandOver {
    static func matches(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, count: Int) -> Bool {
        guard count >= 2, let first = argv[1], strcmp(first, "serve") == 0 else { return false }
        return ServeArguments.parse(count: count - 1, { argv[$0 + 1].map { String(cString: $0) } }) != nil
    }

    static func become() -> Never {
        // argv as we got it, argv[0] included: `ps` shows `sysound serve`.
        Companion.become("sysound-engine", variable: "SYSOUND_ENGINE", argv: CommandLine.unsafeArgv)
    }
}
