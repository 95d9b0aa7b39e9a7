import ArgumentParser
import SysoundClient

/// Options of `sysound serve`, parsed by the CLI (for help and validation)
/// and again by sysound-engine, which runs the daemon.
package struct ServeOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The state directory (control files and socket).", valueName: "dir"))
    package var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file (default: the search order of sysound.toml(5)).", valueName: "file"))
    package var config: String?

    @Option(name: .long, help: ArgumentHelp("Where force-feedback devices appear.", valueName: "dir"))
    package var inputDir = ServeArguments.defaultInputDirectory

    @Flag(name: .shortAndLong, help: "Log at info level (the default for the daemon); kept for symmetry with other commands.")
    package var verbose = false

    package init() {}
}

/// Options of `sysound check`.
package struct CheckOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The configuration file (default: the one the service would use), or a feedbackd theme (FILE.json) with its parents.", valueName: "file"))
    package var file: String?

    @Flag(name: .shortAndLong, help: "Also say which file was checked when all is well.")
    package var verbose = false

    package init() {}
}

/// What the serve and check commands say about themselves, shared by both executables.
package enum EngineCommandText {
    package static let serveAbstract = "Run the daemon: preload the theme, open the devices, serve requests on $STATE/socket."
    package static let serveDiscussion = """
        One daemon per state directory. SIGTERM finishes the replies in flight and exits 0; \
        SIGHUP reloads configuration and theme (a broken one is reported and the old one kept). \
        Accepts a socket from systemd (config/sysound.socket).
        """
    package static let checkAbstract = "Validate a configuration and its theme, a feedbackd theme (FILE.json) or a Core Haptics pattern (FILE.ahap); report every problem with file, line and key."
    package static let checkDiscussion = "Exits 78 if there is any error (warnings alone exit 0)."
}

/// Exit codes (sysexits.h) of both executables, documented in `sysound --help` and the README.
package enum Exit {
    package static let usage: Int32 = 64
    package static let unknownName: Int32 = 65
    package static let badFile: Int32 = 66
    package static let noDevice: Int32 = 69
    package static let software: Int32 = 70
    package static let busy: Int32 = 75
    package static let denied: Int32 = 77
    package static let configuration: Int32 = 78
}
