import Glibc

/// `sysound serve [--config FILE] [--state-dir DIR] [--input-dir DIR] [-v]`,
/// the unit's `ExecStart`: this process becomes `sysound-engine serve` with
/// the same argv. Through the full CLI, which only hands `serve` on, the
/// daemon of a socket-activated session started one executable more (its
/// own start ~8 ms on a busy 2-core machine) before the first sound.
/// Anything else — help, an unknown option, a value that looks like an
/// option — is the full CLI's, so its messages stay the CLI's.
enum ServeHandOver {
    /// Whether argv (its `count` words, the program's name first) is `serve`
    /// with only the options the engine's `serve` takes, each once, with a value.
    static func matches(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, count: Int) -> Bool {
        guard count >= 2, let first = argv[1], strcmp(first, "serve") == 0 else { return false }
        var seen: Set<String> = []
        var i = 2
        while i < count {
            guard let word = argv[i].map({ String(cString: $0) }) else { return false }
            if word == "-v" || word == "--verbose" {
                i += 1
                continue
            }
            let option: String
            if let equals = word.firstIndex(of: "="), word.hasPrefix("--") {
                option = String(word[..<equals])
                i += 1
            } else {
                guard i + 1 < count, let value = argv[i + 1], value.pointee != UInt8(ascii: "-") else { return false }
                option = word
                i += 2
            }
            guard ["--config", "--state-dir", "--input-dir"].contains(option), seen.insert(option).inserted else { return false }
        }
        return true
    }

    static func become() -> Never {
        // argv as we got it, argv[0] included: `ps` shows `sysound serve`.
        Companion.become("sysound-engine", variable: "SYSOUND_ENGINE", argv: CommandLine.unsafeArgv)
    }
}
