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
            // Problems of single sounds leave the rest of the theme playing; a
            // broken configuration file is not run at all (ServiceSetup.loadForServing).
            if (try? SysoundConfiguration.load(path: options.file)) == nil {
                printError("sysound check: until this is fixed, a daemon started with it serves the built-in defaults, and a reload keeps the configuration it runs")
            }
            throw ExitCode(Exit.configuration)
        }
        if options.verbose || diagnostics.isEmpty {
            print("ok: \(options.file ?? "the configuration") and its theme are valid")
        }
    }
}
