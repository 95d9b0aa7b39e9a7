import ArgumentParser
import Logging
import SysoundProgramOutput
import SysoundClient

/// The engine host behind the `sysound` CLI: runs the daemon, and runs single
/// requests in-process when no daemon is up. Not meant to be called by hand:
/// `sysound` starts it with the arguments it has already validated.
@main
struct EngineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sysound-engine",
        abstract: "The engines behind `sysound`: the daemon and the embedded fallback.",
        discussion: "Started by `sysound`; see `sysound --help`.",
        subcommands: [RequestCommand.self, RenderCommand.self, ServeCommand.self, CheckCommand.self, ListDBusCommand.self])

    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        bootstrapLogging(verbose: arguments.contains("-v") || arguments.contains("--verbose") || arguments.first == "serve")
        // The hand-over from `sysound serve` is read without the argument
        // parser, whose start (its commands' reflection, the runtime's
        // conformance lookups) is time before a session's first sound;
        // anything else is the parser's, with its messages.
        let words = Array(arguments)
        if let serve = ServeArguments.parse(count: words.count, { words[$0] }) {
            do {
                try Serve(serve).run()
                exit()
            } catch {
                exit(withError: error)
            }
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
