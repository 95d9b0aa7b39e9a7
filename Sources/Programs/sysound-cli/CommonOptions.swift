import ArgumentParser
import SysoundProgramOutput
import SysoundClient
import SysoundCore
import SysoundState

/// Options every command that talks to the service takes.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The state directory (control files and socket).", valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file for the embedded engine (default: the search order of sysound.toml(5)).", valueName: "file"))
    var config: String?

    @Flag(name: .shortAndLong, help: "Say what happened and why (device used, reason a sound was silenced).")
    var verbose = false

    @Flag(name: .long, help: "Use the embedded engine even if a daemon runs.")
    var embedded = false

    var backend: Backend { Backend(options: self) }
}

/// A request that failed: the wire code decides the exit code.
struct CLIFailure: Error {
    var code: WireErrorCode
    var message: String
    /// The exit status: the documented one for the wire code, unless the
    /// failure was reaching the daemon (a timeout is 75, a lost connection 70).
    var exitCode: Int32

    init(code: WireErrorCode, message: String) {
        self.code = code
        self.message = message
        exitCode = code.exitStatus
    }

    init(exitStatus: Int32, message: String) {
        code = .internal
        self.message = message
        exitCode = exitStatus
    }
}

/// Prints an error the way every command does and returns its exit code.
func fail(_ what: String, _ failure: CLIFailure) -> ExitCode {
    printError("sysound: \(what): \(failure.message)")
    return ExitCode(failure.exitCode)
}
