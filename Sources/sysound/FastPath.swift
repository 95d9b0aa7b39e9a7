import SysoundCLIOptions
import SysoundClient
import SysoundCore
import SysoundState

/// `sysound play NAME [--state-dir DIR]` with a daemon up — the call a
/// keybinding or a script makes most — is one socket round trip, before
/// swift-argument-parser and logging are even set up (their start-up costs
/// more than the request). Anything else, or no daemon, takes the full path.
enum FastPath {
    /// The exit code if the fast path handled the command, else nil.
    static func run(_ arguments: ArraySlice<String>) -> Int32? {
        let args = Array(arguments)
        guard args.count == 2 || (args.count == 4 && args[2] == "--state-dir"),
              args[0] == "play", let name = args.dropFirst().first, !name.hasPrefix("-")
        else { return nil }
        let directory = StateDirectory.resolve(explicit: args.count == 4 ? args[3] : nil)
        let reply: Reply
        do {
            reply = try DaemonClient(socketPath: directory.socketPath).send(.play(PlayRequest(.name(name))))
        } catch {
            return nil  // no daemon, or trouble reaching it: the full path says what happened
        }
        switch reply {
        case .ok: return 0
        case .error(let code, let message):
            let failure = CLIFailure(code: code, message: message)
            printError("sysound: cannot play \(name): \(message)")
            return failure.exitCode
        }
    }
}
