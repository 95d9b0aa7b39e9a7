import ArgumentParser
import Glibc
import Logging
import Sysound
import SysoundCLIOptions
import SysoundClient
import SysoundCore

/// `sysound play NAME [--state-dir DIR] [--app ID]` when no daemon answered:
/// `sysound` becomes this process (execv) instead of the full CLI, which
/// would start this executable once more for the same request. The request
/// is the fast path's, played on the embedded engine; the messages and exit
/// statuses are the CLI's (`sysound: cannot play NAME: …`, sysexits by wire
/// code), and the process stays until the sound has ended, as the CLI's
/// embedded fallback does.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a named sound on the embedded engine (used by `sysound play` when no daemon runs).",
        shouldDisplay: false)

    @Argument(help: "The sound to play.")
    var name: String

    @Option(name: .long, help: ArgumentHelp("The state directory.", valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("Play as this app.", valueName: "id"))
    var app: String?

    func run() throws {
        Self.play(name, stateDirectory: stateDir, app: app)
    }

    /// Plays `name` and ends the process: 0 once the sound has been heard,
    /// else the CLI's message and its exit status.
    static func play(_ name: String, stateDirectory: String?, app: String?) -> Never {
        let service = SoundService(stateDirectory: stateDirectory, configPath: nil, mode: .embedded, logger: Logger(label: "sysound"), oneShot: true)
        let reply: Reply
        do {
            reply = try service.send(.play(PlayRequest(.name(name), app: app)))
        } catch {
            reply = .error(error.code, error.description)
        }
        if case .error(let code, let message) = reply {
            printError("sysound: cannot play \(name): \(message)")
            Glibc.exit(code.exitStatus)
        }
        service.waitUntilIdle()
        endOneShot()
    }
}
