import ArgumentParser
import SysoundCLIOptions
import SysoundProgramOutput
import SysoundConfig
import SysoundFeedback

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: EngineCommandText.checkAbstract, discussion: EngineCommandText.checkDiscussion)

    @OptionGroup var options: CheckOptions

    func run() throws {
        if let file = options.file, FeedbackdCheck.isThemeFile(file) { return try checkFeedbackdTheme(file) }
        if let file = options.file, AHAPCheck.isPatternFile(file) { return try checkHapticPattern(file) }
        let diagnostics = SysoundCheck.check(configPath: options.file)
        for d in diagnostics { printError(d.description) }
        if diagnostics.containsErrors {
            // Problems of single sounds leave the rest of the theme playing; a
            // broken configuration file is not run at all (ServiceSetup.loadForServing).
            // Its errors were printed above; here only whether a daemon could run it.
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

extension CheckCommand {
    /// A feedbackd theme (FILE.json): its own problems and its parents', and
    /// the sounds sysound's theme (of the configuration in use) cannot play.
    func checkFeedbackdTheme(_ file: String) throws {
        // No usable configuration: the feedbackd theme is checked without sysound's sounds (said in its output).
        let sounds = try? ServiceSetup.load(configPath: nil).1
        let diagnostics = FeedbackdCheck.check(themeFile: file, against: sounds)
        for d in diagnostics { printError(d.description) }
        if diagnostics.containsErrors { throw ExitCode(Exit.configuration) }
        if options.verbose || diagnostics.isEmpty { print("ok: \(file) is a valid feedbackd theme") }
    }
}

extension CheckCommand {
    /// A Core Haptics pattern (FILE.ahap): why it cannot be played, and what
    /// of it is ignored or clamped.
    func checkHapticPattern(_ file: String) throws {
        let diagnostics = AHAPCheck.check(file: file)
        for d in diagnostics { printError(d.description) }
        if diagnostics.containsErrors { throw ExitCode(Exit.configuration) }
        if options.verbose || diagnostics.isEmpty { print("ok: \(file) is a valid haptic pattern") }
    }
}
