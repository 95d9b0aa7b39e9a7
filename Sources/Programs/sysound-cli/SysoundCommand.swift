import ArgumentParser
import SysoundProgramOutput

/// The full CLI, `sysound-cli`: what `sysound` becomes (execv) for every
/// command but its fast path. It calls itself `sysound` in help and messages,
/// since that is what users type.
@main
struct SysoundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sysound",
        abstract: "Short UI sounds and haptics that respect silent mode, the screen lock and the volume.",
        discussion: """
            With a daemon running (`sysound serve`) requests go over its socket; without \
            one, sounds play from an engine embedded in this process (a loop needs the daemon).

            Exit codes: 0 played or correctly silenced; 64 bad argument; 65 unknown sound \
            or preset; 66 unreadable sound file; 69 no audio or haptic device, or no daemon \
            for a loop; 70 daemon or internal error; 75 daemon busy or slow to answer; \
            77 permission denied; 78 bad configuration.
            """,
        subcommands: [
            PlayCommand.self, VibrateCommand.self, StopCommand.self,
            SilentCommand.self, LockCommand.self, VolumeCommand.self, HapticsCommand.self, FlashCommand.self,
            InterruptCommand.self, EventCommand.self, StatusCommand.self, ListCommand.self, CheckCommand.self,
            ServeCommand.self,
        ])

    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        bootstrapLogging(verbose: arguments.contains("-v") || arguments.contains("--verbose"))
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
