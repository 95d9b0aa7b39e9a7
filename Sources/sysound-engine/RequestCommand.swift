import ArgumentParser
import Sysound
import SysoundCore

/// Runs one wire request on an engine embedded in this process and prints
/// the reply in wire form; for play and vibrate it then stays until the
/// sound and the vibration have ended (they end with the process).
struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Run one protocol request in-process and print the reply (used by `sysound` without a daemon).")

    @Argument(help: "The request, in the socket protocol's text form (sysound/1 play tap …).")
    var request: String

    @Option(name: .long, help: ArgumentHelp("The state directory.", valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "file"))
    var config: String?

    @Flag(name: .shortAndLong, help: "Log at info level.")
    var verbose = false

    func run() throws {
        let parsed: Request
        do {
            parsed = try Request(parsing: Array(request.utf8))
        } catch {
            return writeReply(error.reply)
        }
        let service = SoundService(stateDirectory: stateDir, configPath: config, mode: .embedded)
        do {
            writeReply(try service.send(parsed))
        } catch {
            writeReply(.error(error.code, error.description))
        }
        service.waitUntilIdle()
    }
}

/// Writes a reply to standard output, unbuffered, so the CLI reads it before
/// this process waits for its sound to end.
func writeReply(_ reply: Reply) {
    var bytes = reply.encoded()
    bytes.append(0x0A)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 { return }
        offset += n
    }
}

#if canImport(Glibc)
import Glibc
#endif
