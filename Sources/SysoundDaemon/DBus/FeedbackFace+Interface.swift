import Glibc
import SysoundPlatform
import SysoundConfig
import SysoundCore
import SysoundFeedback

/// The two interfaces, declared once, as feedbackd 0.8's introspection XML
/// defines them, and what each call asks of the manager.
extension FeedbackFace {
    func feedbackInterface() -> BusInterface {
        var interface = BusInterface(Self.interface)
        interface.property("Profile", "s", get: { [unowned self] reply in
            try reply.append(FeedbackProfile(state: manager.state).rawValue)
        }, set: { [unowned self] value in
            try setProfile(try value.readString())
        })
        interface.method(
            "TriggerFeedback", "ssa{sv}i", arguments: ["app_id", "event", "hints", "timeout"], result: "u", results: ["id"]
        ) { [unowned self] call in try trigger(call) }
        interface.method("EndFeedback", "u", arguments: ["id"]) { [unowned self] call in
            let id = try call.message.readUInt32()
            try call.reply()
            if !events.end(id) {
                // feedbackd answers, and warns, too: the event may just have ended.
                logger.debug("EndFeedback(\(id)): no such running event")
            }
        }
        interface.signal("FeedbackEnded", "uu", arguments: ["id", "reason"])
        return interface
    }

    func hapticInterface() -> BusInterface {
        var interface = BusInterface(Self.hapticInterface)
        interface.method("Vibrate", "sa(du)", arguments: ["app_id", "pattern"], result: "b", results: ["success"]) { [unowned self] call in
            let claimed = try call.message.readString()
            try Self.checkApp(claimed)
            let pattern = try Self.pattern(call.message.readValue())
            let app = decidingApp(claimed: claimed, identity: identity(of: call.message), message: call.message)
            // Answered once the vibration started or failed (its first
            // upload may still be on a worker): true only for one that plays.
            try vibrate(app: app, pattern: pattern, answer: answerLater(call.message, "Vibrate"))
        }
        return interface
    }

    /// Sends a haptic call's boolean answer, which may come after the handler
    /// returned (a first vibration waits for its upload).
    func answerLater(_ message: BusMessage, _ method: String) -> @Sendable (Bool) -> Void {
        { [logger] vibrated in
            do {
                try BusMethodCall.replying(to: message).reply { m in try m.append(vibrated) }
            } catch {
                logger.debug("\(method): the reply could not be sent: \(error)")
            }
        }
    }

    static func checkApp(_ app: String) throws {
        guard PlayRequest.isValidApp(app) else {
            throw BusError.invalidArgs("invalid app id \"\(FeedbackHints.show(app))\"; expected 1 to \(PlayRequest.maximumAppLength) printable bytes, e.g. org.example.App")
        }
    }

    /// The most steps a `Vibrate` pattern may have, and the longest step, as feedbackd 0.8.
    static let maximumVibrateSteps = 10
    static let maximumVibrateStepMs = 10_000

    /// `a(du)`: magnitude and milliseconds per step, as feedbackd takes them:
    /// magnitudes clamped to 0–1, steps to 10 s (the whole to sysound's 30 s),
    /// steps of 0 ms dropped; nil
    /// for more than 10 steps (feedbackd would cut the rest off unheard:
    /// sysound refuses the pattern, and `Vibrate` answers false).
    static func pattern(_ value: BusValue?) throws -> HapticPattern? {
        guard case .array(_, let items)? = value else { throw BusError.invalidArgs("expected a(du)") }
        guard items.count <= maximumVibrateSteps else { return nil }
        var steps: [HapticStep] = []
        for (i, item) in items.enumerated() {
            guard case .structure(let fields) = item, fields.count == 2, let magnitude = fields[0].double,
                let ms = fields[1].uint32
            else { throw BusError.invalidArgs("step \(i + 1) is not (du)") }
            let clamped = magnitude.isNaN ? 0 : min(max(magnitude, 0), 1)
            // Ten steps of 10 s are more than the engine's 30 s: the end is cut, as a step's is.
            let left = HapticPattern.maximumTotalMs - steps.reduce(0) { $0 + $1.durationMs }
            let length = min(Int(ms), maximumVibrateStepMs, left)
            if length > 0 { steps.append(HapticStep(magnitude: clamped, durationMs: length)) }
        }
        return HapticPattern(steps: steps)
    }

    /// Vibrate: false below the quiet level (the user's, the app's), for a
    /// pattern refused above (more than 10 steps), without a vibrator, while
    /// an event's vibration runs, or when the device did not play it
    /// (refused, too late). `answer` runs on the loop, at once or once the
    /// outcome is known.
    func vibrate(app: String?, pattern: HapticPattern?, answer: @escaping @Sendable (Bool) -> Void) throws {
        guard let pattern else {
            logger.info("Vibrate from \(app ?? "an unknown sandbox"): more than \(Self.maximumVibrateSteps) steps; refused")
            return answer(false)
        }
        if pattern.steps.isEmpty {
            // An empty pattern stops (the socket's `stop all` would stop sounds too).
            manager.haptics?.stop()
            return answer(true)
        }
        vibrate(VibrateRequest(.pattern(pattern), app: app), answer: answer)
    }

    /// A vibration of either haptic interface, its input already checked:
    /// false below the quiet level (the user's, the app's), with the haptics
    /// switch off, without a vibrator or when the device did not play it;
    /// true once it plays. `answer` runs on the loop.
    func vibrate(_ request: VibrateRequest, answer: @escaping @Sendable (Bool) -> Void) {
        guard manager.level(for: PlayRequest(.name(""), app: request.app)) >= .quiet else { return answer(false) }
        // What is left to go wrong is the device, which feedbackd answers with false.
        manager.vibrate(request) { reply in
            if case .ok(let fields, _) = reply { answer(fields["outcome"] == FeedbackOutcome.vibrate.rawValue) } else { answer(false) }
        }
    }

    /// TriggerFeedback(s app_id, s event, a{sv} hints, i timeout) → u id.
    func trigger(_ call: BusMethodCall) throws {
        let m = call.message
        let claimed = try m.readString(), eventName = try m.readString()
        let hints = FeedbackHints(try m.readVardict())
        let timeout = EventTimeout(try m.readInt32())
        try Self.checkApp(claimed)
        // A sandboxed sender's proved id decides, not the one it claims.
        let identity = identity(of: m)
        let deciding = decidingApp(claimed: claimed, identity: identity, message: m)
        let app = deciding ?? "an unknown sandbox"
        guard !eventName.isEmpty else { throw BusError.invalidArgs("invalid event \"\"; expected an event name such as button-pressed") }
        for ignored in hints.ignored { logger.info("TriggerFeedback from \(app): ignoring hint \(ignored)") }
        guard !events.isFull else {
            throw BusError(name: BusError.limitsExceeded, message: "\(events.count) feedbacks are running; end some first")
        }

        var source = PlayRequest.Source.name(eventName)
        var opened: OpenedSoundFile?
        do throws(FeedbackError) {
            if let fd = hints.soundFD {
                let handed = try SandboxFiles.adopt(fd)
                (source, opened) = (.file(handed.path), handed)
            } else if let file = hints.soundFile {
                // As the caller sees its files: a sandboxed app's own view (not
                // the host's, not its bus proxy's); another user's only what
                // FileAccessPolicy allows.
                let policy = FileAccessPolicy(
                    soundDirectories: manager.theme.directories, othersMayPlayAnyFile: manager.configuration.othersMayPlayAnyFile)
                let caller = PeerCredentials(pid: 0, uid: m.senderUID() ?? uid_t.max, gid: gid_t.max)
                (source, opened) = try SandboxFiles.source(
                    for: file, identity: identity, caller: caller, policy: policy, runtimeDirectory: callers.runtimeDirectory)
            }
        } catch {
            logger.info("TriggerFeedback from \(app): sound-file refused: \(error.message)")
            throw BusError(name: error.code == .denied ? BusError.accessDenied : BusError.invalidArgs, message: error.message)
        }
        if let opened {
            logger.debug("TriggerFeedback from \(app): sound-file \(opened.shown) opened as \(opened.path)")
        }
        let file = opened
        let request = PlayRequest(source, app: deciding, profile: hints.profile, important: hints.important)
        let themed = hints.soundFile == nil && hints.soundFD == nil
        // The first sound of a media role opens that role's stream on a
        // worker; the call is answered once it is open (never on the loop).
        let (message, sender) = (m, m.sender)
        let later = manager.prepareStream(forEvent: themed ? eventName : nil, request) { [self] in
            do {
                try trigger(
                    BusMethodCall.replying(to: message), eventName, request, themed: themed, timeout: timeout, sender: sender, file: file)
            } catch {
                logger.debug("TriggerFeedback: the reply could not be sent: \(error)")
            }
        }
        if !later { try trigger(call, eventName, request, themed: themed, timeout: timeout, sender: sender, file: file) }
    }

    /// TriggerFeedback once its stream is open: the feedbackd theme first
    /// (unless a sound-file hint names what to play), then sysound's own
    /// name of the event. The id is answered before the event's end is
    /// told. `file`, the sound file opened for the caller, stays open until
    /// the event has decoded it.
    private func trigger(
        _ call: BusMethodCall, _ eventName: String, _ request: PlayRequest, themed: Bool, timeout: EventTimeout, sender: String?,
        file: OpenedSoundFile?
    ) throws {
        let event = withExtendedLifetime(file) {
            events.trigger(eventName, request, themed: themed, timeout: timeout, owner: sender) { [unowned self] event, reason in
                ended(event, reason)
            }
        }
        try call.reply { r in try r.append(event.id) }
        if let sender, !event.hasEnded { watch(sender: sender) }
    }
}
