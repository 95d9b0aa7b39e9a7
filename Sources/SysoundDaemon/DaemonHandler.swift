import SysoundConfig
import SysoundFeedback
import SysoundCore
import SysoundPlatform

/// The daemon's `RequestHandler`: the feedback manager, plus what a reload
/// needs to know (where the configuration came from).
package struct DaemonHandler: RequestHandler {
    package let manager: FeedbackManager
    let configPath: String?
    /// The daemon's running theme events (shared with the D-Bus face); nil: `event` is refused.
    let events: FeedbackEvents?
    /// Which app id decides for a peer (shared with the D-Bus face).
    let callers: CallerApps

    /// - Parameter callers: shared with the D-Bus face; nil: the socket's own.
    package init(manager: FeedbackManager, events: FeedbackEvents? = nil, configPath: String?, callers: CallerApps? = nil) {
        self.manager = manager
        self.events = events
        self.configPath = configPath
        self.callers = callers ?? CallerApps(manager: manager, logger: manager.logger)
    }

    package func handle(_ request: Request, from peer: PeerCredentials, workers: WorkerPool, respond: Responder) {
        if case .event(let event) = request { return serve(event, from: peer, respond: respond) }
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

    /// `event`: a feedbackd-theme event started as TriggerFeedback starts one
    /// (answered with what it played once its stream is open), ended as
    /// EndFeedback ends one, or awaited.
    private func serve(_ request: EventRequest, from peer: PeerCredentials, respond: Responder) {
        guard let events else {
            return respond(.error(.badRequest, "this daemon runs no theme events"))
        }
        switch request {
        case .trigger(let name, let timeout, let app):
            guard !events.isFull else {
                return respond(.error(.busy, "\(events.count) events are running; end some first (event end=ID)"))
            }
            // A sandboxed peer's proved app id decides, as for a play.
            let app = callers.app(claimed: app, identity: peer.sandbox?.identity ?? .host, caller: "socket peer pid \(peer.pid)")
            let play = PlayRequest(.name(name), app: app)
            let start: @Sendable () -> Void = { [manager] in
                let event = events.trigger(name, play, timeout: EventTimeout(timeout)) { event, reason in
                    manager.logger.debug("event \(name) (\(event.id)) of the socket ended: \(reason)")
                }
                respond(.ok(EventReply.fields(of: event)))
            }
            if !manager.prepareStream(forEvent: name, play, then: start) { start() }
        case .end(let id):
            guard events.end(id) else { return respond(Self.unknownEvent(id)) }
            respond(.ok(["id": "\(id)", "reason": EventEndReason.explicit.description]))
        case .wait(let id):
            let known = events.whenEnded(id) { reason in respond(.ok(["id": "\(id)", "reason": reason.description])) }
            if !known { respond(Self.unknownEvent(id)) }
        }
    }

    private static func unknownEvent(_ id: UInt32) -> Reply {
        .error(.unknownEvent, "no event \(id) is running or ended lately; use the id= of an event reply")
    }

    /// Loads configuration and theme anew; a broken configuration is refused
    /// whole and the running one stays.
    package func reload() throws(ReloadError) {
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
        case .play, .vibrate, .event(.trigger): true
        default: false
        }
    }
}
