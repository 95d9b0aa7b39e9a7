import ArgumentParser
import Sysound
import SysoundCore

/// Renders a play request into a WAV file through the loopback device and
/// prints the reply in wire form (`sysound play … --to FILE`).
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a play request into a WAV file (used by `sysound play --to`).")

    @OptionGroup var options: EngineRequestOptions

    @Option(name: .long, help: ArgumentHelp("The WAV file to write.", valueName: "file"))
    var to: String

    func run() throws {
        let play: PlayRequest
        do {
            guard case .play(let request, _) = try Request(parsing: Array(options.request.utf8)) else {
                return writeReply(.error(.badRequest, "render takes a play request"))
            }
            play = request
        } catch {
            return writeReply(error.reply)
        }
        do {
            let outcome = try SoundRenderer.render(play, to: to, configPath: options.config, stateDirectory: options.stateDir)
            writeReply(.ok(outcome))
        } catch {
            writeReply(.error(error.code, error.description))
        }
    }
}
