import ArgumentParser
import FoundationEssentials
import Glibc
import SysoundProgramOutput
import SysoundConfig
import SysoundFeedback

/// `sysound list --dbus`: what each D-Bus event does in each profile, through
/// the feedbackd theme the daemon would load (or `--theme FILE.json`).
struct ListDBusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list-dbus", abstract: "What each D-Bus event does per profile (used by `sysound list --dbus`).")

    @Option(name: .long, help: ArgumentHelp("A feedbackd theme file to list instead of the configured one.", valueName: "file"))
    var theme: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "file"))
    var config: String?

    @Flag(name: .long, help: "Print JSON for programs.")
    var json = false

    func run() throws {
        let (configuration, sounds, _) = try ServiceSetup.load(configPath: config)
        var environment = ProcessInfo.processInfo.environment
        if let theme { environment["FEEDBACK_THEME"] = theme }
        let (feedbackd, problems) = FeedbackdTheme.load(name: configuration.dbus.feedbackTheme, environment: environment)
        for problem in problems { printError(problem.description) }
        let rows = FeedbackdCheck.rows(feedbackd, theme: sounds)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(rows), as: UTF8.self))
        } else {
            print(FeedbackdCheck.text(rows, theme: feedbackd), terminator: "")
        }
    }
}
