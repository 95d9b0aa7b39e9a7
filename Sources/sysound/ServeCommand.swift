import ArgumentParser
import Sysound

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the daemon: preload the theme, open the devices, serve requests on $STATE/socket.")

    @OptionGroup var common: CommonOptions

    func run() throws {
        throw ExitCode(Exit.software)
    }
}
