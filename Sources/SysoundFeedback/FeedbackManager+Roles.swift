import SysoundAudio
import SysoundConfig
import SysoundCore

/// Media roles: which engine (and so which sound-server stream) a play goes
/// to, and the policy operations that reach every role's engine.
extension FeedbackManager {
    /// The event engine (if open) and every other role's engine open now.
    package var audioEngines: [AudioEngine] {
        guard let audio else { return [] }
        return [audio] + roles.engines
    }

    /// The roles with a stream of their own open now, event's first (`status`).
    package var openMediaRoles: [MediaRole] { audio == nil ? [] : [.event] + roles.openRoles }

    /// The role a play gets: the request's (`role=`, a feedbackd theme's
    /// `media-role`), else its theme entry's, else its category's.
    func role(of request: PlayRequest, entry: SoundEntry) -> MediaRole {
        MediaRole.of(request: request.role, entry: entry.role, category: request.category ?? entry.category)
    }

    /// The engine that plays `role`: the event engine, or the role's own,
    /// opened here when this manager opens in place (embedded). Where the
    /// role cannot have a stream of its own (OpenAL Soft's device, loopback)
    /// or its open failed, the event engine.
    func engine(for role: MediaRole) throws(AudioError) -> AudioEngine {
        let event = try audioEngine()
        guard roles.separates(role, from: event) else { return event }
        if let engine = try roles.engineInPlace(role, volume: state.volume) { return engine }
        logger.debug("the \(role) stream is not open; playing on the event stream")
        return event
    }

    /// The engine a voice plays on (its role says which), if still open.
    func engine(of voice: VoiceID) -> AudioEngine? {
        voice.role == .event ? audio : roles.engine(voice.role)
    }

    /// Makes sure the stream a socket request plays on is open before the
    /// request is answered: when its role's engine must first be opened, the
    /// open runs on a worker and `then` is called on the loop afterwards,
    /// and this returns true; false when the request can be answered now.
    package func prepareStream(for request: Request, then: @escaping @Sendable () -> Void) -> Bool {
        // An unknown sound opens no stream: the play itself answers its error.
        guard case .play(let play, _) = request, let (entry, _) = try? resolve(play.source) else { return false }
        return prepare(role(of: play, entry: entry), then: then)
    }

    /// As `prepareStream(for:)`, for a D-Bus event: the role the feedbackd
    /// theme gives its sound (`media-role`), else that of sysound's sound of
    /// the request. Nil `event`: the request's sound only (a sound-file hint).
    package func prepareStream(forEvent event: String?, _ request: PlayRequest, then: @escaping @Sendable () -> Void) -> Bool {
        if let event, let theme = feedbackdTheme, theme.feedbacks(for: event, level: level(for: request)) != nil {
            guard let role = eventSoundRole(event, request) else { return false }
            return prepare(role, then: then)
        }
        return prepareStream(for: .play(request, wait: false), then: then)
    }

    private func prepare(_ role: MediaRole, then: @escaping @Sendable () -> Void) -> Bool {
        guard roles.mustPrepare(role, event: audio) else { return false }
        roles.prepare(role, volume: { [weak self] in self?.state.volume ?? 1 }, then: then)
        return true
    }

    /// A playing voice asks to duck: the voices of the other roles' engines
    /// duck with it (its own engine ducks its own voices itself).
    func duckOtherRoles(for voice: VoiceID, on engine: AudioEngine) {
        let others = audioEngines.filter { $0 !== engine }
        engine.duck(others, whilePlaying: voice)
    }

    /// Closes every engine, every role's (the daemon's shutdown).
    package func shutdownAudio() {
        roles.shutdown()
        audio?.shutdown()
    }
}
