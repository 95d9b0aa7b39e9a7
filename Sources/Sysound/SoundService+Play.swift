import SysoundCore

extension SoundService {
    /// Plays a sound of the theme (or an alias, or a freedesktop sound name),
    /// unless the user's settings silence it; a silenced sound is not an
    /// error: the returned ``Playback`` says why.
    ///
    /// Returns when the sound has started; await ``Playback/finished`` for its end.
    ///
    /// - Parameters:
    ///   - name: the sound's name in the theme, such as `"tap"`.
    ///   - category: overrides the sound's own category; choose by meaning.
    ///   - gain: 0–1, relative to the theme's level (never louder).
    ///   - rate: playback rate and pitch, 0.5–2.
    ///   - duck: lower other sounds while this one plays (`playback`).
    ///   - loop: loop a loopable sound until stopped; needs the daemon
    ///     (``SoundServiceError/Kind/needsDaemon`` without one), except in mode ``Mode/embedded``.
    /// - Throws: ``SoundServiceError``: an unknown name, a bad value, no audio device…
    @discardableResult
    public func play(
        _ name: String, category: SoundCategory? = nil, gain: Double = 1, rate: Double = 1,
        duck: Bool = false, loop: Bool = false
    ) async throws(SoundServiceError) -> Playback {
        let request = PlayRequest(.name(name), category: category, gain: gain, rate: rate, duck: duck, loop: loop)
        return try await Self.offThePool { () throws(SoundServiceError) in try self.start(request) }
    }

    /// Plays a sound file (decoded on its first use and kept).
    @discardableResult
    public func play(file path: String, category: SoundCategory? = nil, gain: Double = 1) async throws(SoundServiceError) -> Playback {
        let request = PlayRequest(.file(path), category: category, gain: gain)
        return try await Self.offThePool { () throws(SoundServiceError) in try self.start(request) }
    }

    /// Plays a sound of the theme, from a synchronous context (a script, a
    /// tool); ``Playback/waitUntilFinished()`` waits for its end.
    @discardableResult
    public func play(
        _ name: String, category: SoundCategory? = nil, gain: Double = 1, rate: Double = 1,
        duck: Bool = false, loop: Bool = false
    ) throws(SoundServiceError) -> Playback {
        try start(PlayRequest(.name(name), category: category, gain: gain, rate: rate, duck: duck, loop: loop))
    }

    /// Plays a sound file, from a synchronous context.
    @discardableResult
    public func play(file path: String, category: SoundCategory? = nil, gain: Double = 1) throws(SoundServiceError) -> Playback {
        try start(PlayRequest(.file(path), category: category, gain: gain))
    }

    /// The one way a sound starts: the daemon's reply, or the embedded engine's result.
    func start(_ request: PlayRequest) throws(SoundServiceError) -> Playback {
        switch try route(.play(request, wait: false)) {
        case .daemon(let reply):
            return Playback(fields: try Self.unpack(reply), engine: .daemon(link))
        case .embedded(let engine):
            return try engine.play(request)
        }
    }

    /// Stops every sound this user's service plays (the daemon's, or this process's).
    public func stopAll() async throws(SoundServiceError) {
        try await Self.offThePool { () throws(SoundServiceError) in try self.stopAll() }
    }

    /// Stops every sound, from a synchronous context.
    public func stopAll() throws(SoundServiceError) {
        try perform(.stop(.all))
    }

    // MARK: - Haptics

    /// Vibrates with a preset, scaled by `intensity` (0–1), unless the haptics
    /// switch is off (the returned ``Vibration`` says so).
    @discardableResult
    public func vibrate(_ preset: HapticPreset, intensity: Double = 1) async throws(SoundServiceError) -> Vibration {
        try await Self.offThePool { () throws(SoundServiceError) in try self.vibrate(preset, intensity: intensity) }
    }

    /// Vibrates with a built-in preset: `vibrate(.success)`.
    @discardableResult
    public func vibrate(_ preset: BuiltInHaptic, intensity: Double = 1) async throws(SoundServiceError) -> Vibration {
        try await vibrate(HapticPreset(preset), intensity: intensity)
    }

    /// Vibrates with an ad-hoc pattern.
    @discardableResult
    public func vibrate(_ pattern: HapticPattern, intensity: Double = 1) async throws(SoundServiceError) -> Vibration {
        try await Self.offThePool { () throws(SoundServiceError) in try self.vibrate(pattern, intensity: intensity) }
    }

    /// Vibrates with a preset, from a synchronous context.
    @discardableResult
    public func vibrate(_ preset: HapticPreset, intensity: Double = 1) throws(SoundServiceError) -> Vibration {
        Vibration(try perform(.vibrate(VibrateRequest(.preset(preset.name), intensity: intensity))))
    }

    /// Vibrates with a built-in preset, from a synchronous context.
    @discardableResult
    public func vibrate(_ preset: BuiltInHaptic, intensity: Double = 1) throws(SoundServiceError) -> Vibration {
        try vibrate(HapticPreset(preset), intensity: intensity)
    }

    /// Vibrates with an ad-hoc pattern, from a synchronous context.
    @discardableResult
    public func vibrate(_ pattern: HapticPattern, intensity: Double = 1) throws(SoundServiceError) -> Vibration {
        Vibration(try perform(.vibrate(VibrateRequest(.pattern(pattern), intensity: intensity))))
    }

    /// Vibrates with a designer's description (an AHAP pattern, a
    /// composition of Android's primitives), rendered for the motor at hand;
    /// its sounds play at their times, each through the policy.
    @discardableResult
    public func vibrate(_ score: HapticScore, intensity: Double = 1) throws(SoundServiceError) -> Vibration {
        Vibration(try perform(.vibrate(VibrateRequest(.score(score), intensity: intensity))))
    }

    /// Vibrates with a composition of Android's primitives:
    /// `vibrate(try HapticComposition(parsing: "click,tick:0.5@40"))`.
    @discardableResult
    public func vibrate(_ composition: HapticComposition, intensity: Double = 1) throws(SoundServiceError) -> Vibration {
        try vibrate(composition.score, intensity: intensity)
    }

    /// Vibrates with a Core Haptics pattern: the text of an AHAP file (its
    /// `AudioCustom` sounds are theme sounds' names or absolute paths).
    ///
    /// - Throws: ``SoundServiceError`` of kind `badValue` naming the line and
    ///   key of a malformed pattern.
    @discardableResult
    public func vibrate(ahap text: String, intensity: Double = 1) throws(SoundServiceError) -> Vibration {
        var reader = AHAPReader()
        let score: HapticScore
        do { score = try reader.read(text) } catch { throw SoundServiceError(.badValue, "AHAP pattern: \(error)") }
        return try vibrate(score, intensity: intensity)
    }
}

/// What the service did with a request to vibrate.
public struct Vibration: Sendable, Equatable {
    /// `vibrate`, or `skip` when the user's settings (the haptics switch) or
    /// the device's state let nothing vibrate.
    public var outcome: FeedbackOutcome
    /// Why nothing vibrated, when it did not.
    public var skipped: HapticSkipReason?

    init(_ fields: WireFields) {
        outcome = fields["outcome"].flatMap(FeedbackOutcome.init(rawValue:)) ?? .vibrate
        skipped = fields["reason"].flatMap(HapticSkipReason.init(rawValue:))
    }
}
