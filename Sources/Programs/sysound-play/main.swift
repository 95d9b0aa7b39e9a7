import Glibc
import Logging
import Sysound
import SysoundClient
import SysoundCore
import SysoundProgramOutput

// `sysound play NAME [--state-dir DIR] [--app ID]` when no daemon answered:
// `sysound` becomes this process (execv, its argv unchanged), which plays the
// sound on the engine embedded in it and ends once it has been heard. The
// messages and exit statuses are the CLI's (`sysound: cannot play NAME: …`,
// sysexits by wire code).
//
// An executable of its own, not a command of `sysound-engine`: it links the
// library's embedded engine and nothing of the daemon — no D-Bus face, no
// GLib (the desktop's switches), no argument parser. Every library the
// loader maps and binds, and every conformance record the Swift runtime
// scans, is time before the first sample (docs/latency.md, "Without a
// daemon"): this way 3 shared libraries and 6 MB of the executable less.

bootstrapLogging(verbose: false)
guard let play = PlayArguments.parse(count: Int(CommandLine.argc) - 1, { CommandLine.unsafeArgv[$0 + 1].map { String(cString: $0) } }) else {
    printError("sysound-play: started by `sysound play NAME [--state-dir DIR] [--app ID]` when no daemon runs; run that instead")
    exit(EX_USAGE)
}
let service = SoundService(
    stateDirectory: play.stateDirectory, configPath: nil, mode: .embedded, logger: Logger(label: "sysound"), oneShot: true)
let reply: Reply
do {
    reply = try service.send(.play(PlayRequest(.name(play.name), app: play.app)))
} catch {
    reply = .error(error.code, error.description)
}
if case .error(let code, let message) = reply {
    printError("sysound: cannot play \(play.name): \(message)")
    exit(code.exitStatus)
}
service.waitUntilIdle()
endOneShot()
