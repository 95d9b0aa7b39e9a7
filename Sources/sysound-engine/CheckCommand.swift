import ArgumentParser
import SysoundCLIOptions
import SysoundConfig

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: EngineCommandText.checkAbstract, discussion: EngineCommandText.checkDiscussion)

    @OptionGroup var options: CheckOptions

    func run() throws {
        let diagnostics = SysoundCheck.check(configPath: options.file)
        for d in diagnostics { printError(d.description) }
        if diagnostics.containsErrors {
            throw ExitCode(Exit.configuration)
        }
        if options.verbose || diagnostics.isEmpty {
            print("ok: \(options.file ?? "the configuration") and its theme are valid")
        }
    }
}

/// Standard error through write(2): no stdio buffering, no shared FILE*.
func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { return }
        offset += n
    }
}

#if canImport(Glibc)
import Glibc
#endif
