import Glibc
import SysoundCLIOptions
import SysoundClient
import SysoundCore
import SysoundState

/// Where the CLI's requests go: the daemon over its socket when one answers,
/// else a one-shot `sysound-engine` process that loads the engines, plays in
/// its own process, prints the reply and exits when the sound has ended.
///
/// Keeping the engines out of this executable is what makes `sysound play`
/// with a daemon up cost about as much as a trivial process.
struct Backend {
    let options: CommonOptions

    var stateDirectory: StateDirectory { StateDirectory.resolve(explicit: options.stateDir) }

    /// Which way a request went, for `--verbose`.
    enum Route: Equatable {
        case daemon(socket: String)
        case engine
    }

    /// Sends `request`; an `error` reply becomes a thrown `CLIFailure`.
    func perform(_ request: Request) throws(CLIFailure) -> (fields: WireFields, records: [WireFields], route: Route) {
        let (reply, route) = try send(request)
        let (fields, records) = try Self.unpack(reply)
        return (fields, records, route)
    }

    /// Sends `request` to the daemon and waits for its reply as long as it
    /// takes (`event wait=ID`: until the event ends); a daemon is required.
    func performWaiting(_ request: Request) throws(CLIFailure) -> WireFields {
        let reply: Reply
        do {
            reply = try DaemonClient(socketPath: stateDirectory.socketPath, timeoutMilliseconds: nil).send(request)
        } catch {
            throw CLIFailure(exitStatus: error.exitStatus, message: error.description)
        }
        return try Self.unpack(reply).0
    }

    private func send(_ request: Request) throws(CLIFailure) -> (Reply, Route) {
        if let answered = try daemonReply(request) { return answered }
        if case .play(let play, _) = request, play.loop { throw Self.loopNeedsDaemon(socket: stateDirectory.socketPath) }
        if case .event = request { throw Self.eventNeedsDaemon(socket: stateDirectory.socketPath) }
        return (try Engine.run(["request", request.text] + engineOptions), .engine)
    }

    /// A loop on the one-shot engine would play in that process until its
    /// limit, where `sysound stop` (which asks the daemon) cannot reach it:
    /// refused, with the way to a daemon that can stop it. EX_UNAVAILABLE,
    /// as for any command that needs the daemon and finds none.
    static func loopNeedsDaemon(socket: String) -> CLIFailure {
        CLIFailure(
            exitStatus: EX_UNAVAILABLE,
            message: "a loop needs the daemon, and none answers at \(socket): only the daemon can stop it later "
                + "(`sysound stop`); start it with `systemctl --user start sysound` or `sysound serve`, then play again")
    }

    /// A theme event runs on the daemon's loop (it may last until it is
    /// ended, which only the daemon can do later): without one, refused as a loop is.
    static func eventNeedsDaemon(socket: String) -> CLIFailure {
        CLIFailure(
            exitStatus: EX_UNAVAILABLE,
            message: "feedbackd-theme events are run by the daemon, and none answers at \(socket); "
                + "start it with `systemctl --user start sysound` or `sysound serve`, then try again")
    }

    /// The daemon's reply, or nil when it is not to be asked (`--embedded`) or none runs.
    private func daemonReply(_ request: Request) throws(CLIFailure) -> (Reply, Route)? {
        guard !options.embedded else { return nil }
        let socket = stateDirectory.socketPath
        do {
            return (try DaemonClient(socketPath: socket).send(request), .daemon(socket: socket))
        } catch {
            // Only a request that never reached a daemon goes elsewhere: one
            // that was sent may have been carried out, and is not sent twice.
            guard error.reachedNoDaemon else { throw CLIFailure(exitStatus: error.exitStatus, message: error.description) }
            return nil
        }
    }

    /// An `ok` reply's fields and records; an `error` reply as a `CLIFailure`.
    private static func unpack(_ reply: Reply) throws(CLIFailure) -> (WireFields, [WireFields]) {
        switch reply {
        case .ok(let fields, let records): return (fields, records)
        case .error(let code, let message): throw CLIFailure(code: code, message: message)
        }
    }

    /// Renders a play request into a WAV file (always in-process: the daemon never writes files).
    func render(_ request: PlayRequest, to path: String) throws(CLIFailure) -> WireFields {
        try Self.unpack(try Engine.run(["render", Request.play(request).text, "--to", path] + engineOptions)).0
    }

    /// Whether a daemon answers (for `status`).
    var daemonIsRunning: Bool {
        !options.embedded && DaemonClient(socketPath: stateDirectory.socketPath).isDaemonRunning()
    }

    private var engineOptions: [String] {
        (options.stateDir.map { ["--state-dir", $0] } ?? []) + (options.config.map { ["--config", $0] } ?? [])
            + (options.verbose ? ["--verbose"] : [])
    }
}

extension Backend {
    /// The user's settings, read from the control files.
    var state: SystemState { ControlFiles(directory: stateDirectory).loadAll().state }

    /// Changes a setting: through the daemon (which applies it to what plays
    /// now) when one runs, else by writing the control file atomically here.
    func set(_ file: ControlFile, to value: String) throws(CLIFailure) {
        let change: StateChange
        do {
            change = try StateChange(file, parsing: value)
        } catch {
            throw CLIFailure(code: .badValue, message: "\(file.rawValue): \(error)")
        }
        try sendOrWrite(.stateSet(change), file: change.file, content: change.content)
    }

    /// Begins or ends an interruption; without a daemon nothing plays that
    /// could pause, so recording it in the control file is all there is to do.
    func interrupt(begin: Bool, resumable: Bool) throws(CLIFailure) {
        try sendOrWrite(begin ? .interruptBegin : .interruptEnd(resumable: resumable), file: .interrupted, content: begin ? "1" : "0")
    }

    private func sendOrWrite(_ request: Request, file: ControlFile, content: String) throws(CLIFailure) {
        if let (reply, _) = try daemonReply(request) {
            _ = try Self.unpack(reply)
            return
        }
        do {
            try ControlFiles(directory: stateDirectory).write(file, content)
        } catch {
            throw CLIFailure(code: .internal, message: error.description)
        }
    }
}
