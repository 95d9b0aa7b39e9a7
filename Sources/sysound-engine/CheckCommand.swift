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
