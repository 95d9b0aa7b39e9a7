import SysoundCore
import SysoundFeedback
import SysoundState

/// A haptic preset by name: a built-in one (`HapticPreset(.heavy)`), or any preset of the configuration.
public struct HapticPreset: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let name: String
    public init(_ name: String) { self.name = name }
    public init(stringLiteral name: String) { self.name = name }
    public var description: String { name }

    /// A built-in preset (`vibrate(.success)` takes one directly).
    public init(_ builtIn: BuiltInHaptic) { self.name = builtIn.rawValue }

    /// Every built-in preset, from the one list (`HapticPresets`); a
    /// configuration may add more.
    public static var builtIn: [HapticPreset] { BuiltInHaptic.allCases.map(HapticPreset.init) }
}

/// What the service did with a play request.
public struct PlayOutcome: Sendable, Equatable {
    /// `.play`, `.skip`, `.vibrateInstead`, `.playAndVibrate` or `.deferred`.
    public var outcome: FeedbackOutcome
    /// Why the sound was not played (`silent`, `locked`, …), if it was not.
    public var reason: SkipReason?
    /// Why the vibration that was due did not start, if it did not.
    public var hapticSkipped: HapticSkipReason?
    /// The voice to `stop(_:)` later, if one plays.
    public var voiceID: String?
    /// All the reply's fields, for diagnostics.
    public var fields: WireFields

    init(_ fields: WireFields) {
        self.fields = fields
        outcome = fields["outcome"].flatMap(FeedbackOutcome.init(rawValue:)) ?? .play
        reason = fields["reason"].flatMap(SkipReason.init(rawValue:))
        hapticSkipped = fields["haptic-skipped"].flatMap(HapticSkipReason.init(rawValue:))
        voiceID = fields["id"]
    }

    /// The embedded engine's result as it is, without a round trip through reply fields.
    init(_ result: PlayResult) {
        outcome = result.outcome
        reason = result.decision.soundSkipReason
        if case .skipped(let why) = result.haptic { hapticSkipped = why }
        voiceID = result.voice?.wireID
        fields = FeedbackManager.fields(of: result)
    }
}

extension SoundService {
    /// Plays a sound of the theme (or an alias, or a freedesktop name), unless
    /// the user's settings silence it; a silenced sound is not an error.
    ///
    /// - Parameters:
    ///   - category: overrides the sound's own category; choose by meaning.
    ///   - gain: 0–1, relative to the theme's level (never louder).
    ///   - rate: playback rate and pitch, 0.5–2.
    ///   - duck: lower other voices while this one plays (`playback`).
    ///   - loop: loop a loopable sound until `stop`; needs the daemon
    ///     (`.needsDaemon` without one), except in mode `.embedded`.
    ///   - wait: return when the sound has ended.
    @discardableResult
    public func play(
        _ name: String, category: SoundCategory? = nil, gain: Double = 1, rate: Double = 1,
        duck: Bool = false, loop: Bool = false, wait: Bool = false
    ) throws(SoundServiceError) -> PlayOutcome {
        let request = PlayRequest(.name(name), category: category, gain: gain, rate: rate, duck: duck, loop: loop)
        return try play(request, wait: wait)
    }

    /// Plays a sound file (decoded on first use and cached).
    @discardableResult
    public func play(file path: String, category: SoundCategory? = nil, gain: Double = 1, wait: Bool = false) throws(SoundServiceError) -> PlayOutcome {
        try play(PlayRequest(.file(path), category: category, gain: gain), wait: wait)
    }

    /// The daemon's reply, or the embedded engine's typed result.
    func play(_ request: PlayRequest, wait: Bool) throws(SoundServiceError) -> PlayOutcome {
        switch try route(.play(request, wait: wait)) {
        case .daemon(let reply):
            return PlayOutcome(try Self.unpack(reply).0)
        case .embedded(let manager):
            do throws(FeedbackError) {
                let result = try manager.play(request)
                if wait, let voice = result.voice { manager.waitForEnd(of: voice) }
                return PlayOutcome(result)
            } catch {
                throw .refused(code: error.code, message: error.message)
            }
        }
    }

    /// Vibrates with a preset, scaled by `intensity` (0–1).
    public func vibrate(_ preset: HapticPreset, intensity: Double = 1) throws(SoundServiceError) {
        try perform(.vibrate(VibrateRequest(.preset(preset.name), intensity: intensity)))
    }

    /// Vibrates with a built-in preset: `vibrate(.success)`.
    public func vibrate(_ preset: BuiltInHaptic, intensity: Double = 1) throws(SoundServiceError) {
        try vibrate(HapticPreset(preset), intensity: intensity)
    }

    /// Vibrates with an ad-hoc pattern.
    public func vibrate(_ pattern: HapticPattern, intensity: Double = 1) throws(SoundServiceError) {
        try perform(.vibrate(VibrateRequest(.pattern(pattern), intensity: intensity)))
    }

    /// Stops one voice (the `voiceID` of a `PlayOutcome`), or everything.
    public func stop(_ voiceID: String? = nil) throws(SoundServiceError) {
        try perform(.stop(voiceID.map(StopTarget.voice) ?? .all))
    }

    /// The user's settings now, read from the control files.
    public var state: SystemState {
        ControlFiles(directory: stateDirectory).loadAll().state
    }

    /// Changes a setting (writes its control file atomically; the daemon, if
    /// any, applies it at once).
    public func set(_ file: ControlFile, to value: String) throws(SoundServiceError) {
        let change: StateChange
        do {
            change = try StateChange(file, parsing: value)
        } catch {
            throw .refused(code: .badValue, message: "\(file.rawValue): \(error)")
        }
        try perform(.stateSet(change))
    }

    /// An interruption (e.g. a call) begins: ambient sounds stop, playback pauses.
    public func beginInterruption() throws(SoundServiceError) {
        try perform(.interruptBegin)
    }

    /// The interruption ends; paused and deferred sounds resume only if `resumable`.
    public func endInterruption(resumable: Bool) throws(SoundServiceError) {
        try perform(.interruptEnd(resumable: resumable))
    }

    /// The user's settings each time they change (inotify on the control
    /// files), starting with the current ones.
    public func stateChanges() throws(SoundServiceError) -> AsyncStream<SystemState> {
        let watcher: StateWatcher
        do {
            try stateDirectory.prepare()
            watcher = try StateWatcher(directory: stateDirectory, logger: logger)
        } catch {
            throw .refused(code: .internal, message: "\(error)")
        }
        return AsyncStream { continuation in
            continuation.yield(watcher.state)
            watcher.onChange { _, new in continuation.yield(new) }
            continuation.onTermination = { _ in watcher.stop() }
            watcher.start()
        }
    }
}
