import SysoundAudio
import SysoundConfig
import SysoundFeedback
import SysoundCore
import SysoundPlatform

/// The daemon's `RequestHandler`: the feedback manager, plus what a reload
/// needs to know (where the configuration came from).
public struct DaemonHandler: RequestHandler {
    public let manager: FeedbackManager
    let configPath: String?
    /// Which app id decides for a peer (shared with the D-Bus face).
    let callers: CallerApps

    /// - Parameter callers: shared with the D-Bus face; nil: the socket's own.
    public init(manager: FeedbackManager, configPath: String?, callers: CallerApps? = nil) {
        self.manager = manager
        self.configPath = configPath
        self.callers = callers ?? CallerApps(manager: manager, logger: manager.logger)
    }

    package func handle(_ request: Request, from peer: PeerCredentials, workers: WorkerPool, respond: Responder) {
        // The first play of a media role opens that role's stream on a
        // worker; the request is answered once it is open (or played on the
        // event stream, if it could not open), never waiting on the loop.
        let later = manager.prepareStream(for: request) { [self] in
            serve(request, from: peer, workers: workers, respond: respond)
        }
        if !later { serve(request, from: peer, workers: workers, respond: respond) }
    }

    private func serve(_ request: Request, from peer: PeerCredentials, workers: WorkerPool, respond: Responder) {
        var request = request
        // A sandboxed peer's proved app id decides, not the one it claims.
        let identity = request.namesApp ? peer.sandbox?.identity ?? .host : .host
        let caller = "socket peer pid \(peer.pid)"
        switch request {
        case .play(var play, let wait):
            play.app = callers.app(claimed: play.app, identity: identity, caller: caller)
            request = .play(play, wait: wait)
        case .vibrate(var vibrate):
            vibrate.app = callers.app(claimed: vibrate.app, identity: identity, caller: caller)
            request = .vibrate(vibrate)
        default: break
        }
        if case .play(var play, let wait) = request, case .file(let path) = play.source {
            // As the peer sees its files (a sandbox's own view); another
            // user's may be only what FileAccessPolicy allows.
            let opened: OpenedSoundFile?
            do throws(FeedbackError) {
                let policy = FileAccessPolicy(
                    soundDirectories: manager.theme.directories, othersMayPlayAnyFile: manager.configuration.othersMayPlayAnyFile)
                (play.source, opened) = try SandboxFiles.source(
                    for: path, identity: identity, caller: peer, policy: policy, runtimeDirectory: callers.runtimeDirectory)
            } catch {
                return respond(.error(error.code, error.message))
            }
            // Decoding a file (on its first play) reads and converts it: a
            // worker's job. A file's play changes no setting, so leaving the
            // loop's order costs nothing.
            let (manager, request) = (manager, Request.play(play, wait: wait))
            return workers.submit({ () -> Answer in
                var answer = Answer(manager.answer(request))
                // The file stays open until decoded; its messages name it as the peer did.
                if let opened, case .error(let code, let message) = answer.reply { answer.reply = .error(code, opened.explain(message)) }
                return answer
            }, then: { answer in
                // wait=1: the reply goes out at the sound's end, as for a name; no worker waits for it.
                guard let voice = answer.waitFor else { return respond(answer.reply) }
                manager.whenHeard(voice) { respond(answer.reply) }
            })
        }
        // A vibration is answered once it has started (its first upload
        // may still be on a worker), or with why not: never "vibrated" for a
        // device that refused it.
        if case .vibrate(let vibrate) = request { return manager.vibrate(vibrate) { respond($0) } }
        let (reply, voice) = manager.answer(request)
        guard let voice else { return respond(reply) }
        // wait=1 and `wait ID`: the sound plays now; the engine tells its
        // end, and the reply goes out then (by way of the loop), holding no
        // worker for the sound's length.
        manager.whenHeard(voice) { respond(reply) }
    }

    /// Loads configuration and theme anew; a broken configuration is refused
    /// whole and the running one stays.
    public func reload() throws(ReloadError) {
        do {
            let (configuration, theme, problems) = try ServiceSetup.load(configPath: configPath)
            if problems.containsErrors {
                manager.logger.warning("the new theme has problems; the sounds that load are used: \(problems.map(\.description).joined(separator: "; "))")
            }
            manager.reload(configuration: configuration, theme: theme)
            manager.configurationProblem = nil
        } catch {
            let refused = ReloadError("configuration not reloaded, keeping the running one: \(error)")
            manager.configurationProblem = refused.description
            throw refused
        }
    }
}

/// A manager's answer, carried from a worker back to the loop.
private struct Answer: Sendable {
    var reply: Reply
    var waitFor: VoiceID?
    init(_ answer: (reply: Reply, waitFor: VoiceID?)) { (reply, waitFor) = answer }
}

extension Request {
    /// Whether an app's id decides this request (its levels, `important`, a file's view).
    var namesApp: Bool {
        switch self {
        case .play, .vibrate: true
        default: false
        }
    }
}
