#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Logging
import Sysound
import SysoundProgramOutput
import SysoundCore

/// Runs one wire request on an engine embedded in this process and prints
/// the reply in wire form; for play and vibrate it then stays until the
/// sound and the vibration have ended (they end with the process).
struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Run one protocol request in-process and print the reply (used by `sysound` without a daemon).")

    @OptionGroup var options: EngineRequestOptions

    func run() throws {
        let parsed: Request
        do {
            parsed = try Request(parsing: Array(options.request.utf8))
        } catch {
            return writeReply(error.reply)
        }
        // The process's logging (bootstrapLogging: warnings, or info with --verbose), not the library's silence.
        let service = SoundService(stateDirectory: options.stateDir, configPath: options.config, mode: .embedded,
                                   logger: Logger(label: "sysound"), oneShot: true)
        do {
            writeReply(try service.send(parsed))
        } catch {
            writeReply(.error(error.code, error.description))
        }
        service.waitUntilIdle()
        endOneShot()
    }
}

/// Writes a reply to standard output, unbuffered, so the CLI reads it before
/// this process waits for its sound to end.
func writeReply(_ reply: Reply) {
    writeAll(1, reply.encoded() + [0x0A])
}

/// What `request` and `render` take: a request in wire form and where the
/// user's settings and configuration are.
struct EngineRequestOptions: ParsableArguments {
    @Argument(help: "The request, in the socket protocol's text form (sysound/1 play tap ...).")
    var request: String

    @Option(name: .long, help: ArgumentHelp("The state directory.", valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "file"))
    var config: String?

    @Flag(name: .shortAndLong, help: "Log at info level.")
    var verbose = false
}
