import Glibc
import SysoundAudio
import SysoundConfig
import SysoundCore
import SysoundHaptics
import SysoundState

extension FeedbackManager {
    /// Answers one request of the socket protocol. Never throws and never
    /// traps on bad input: every failure is an `error` reply and the manager's
    /// state is unchanged by a refused request.
    package func handle(_ request: Request) -> Reply {
        let (reply, voice) = answer(request)
        if let voice { waitForEnd(of: voice) }
        return reply
    }

    /// Answers a request without waiting: for `play … wait=1` the reply is
    /// due once `waitFor` has ended (`waitForEnd(of:)`, which blocks: the
    /// daemon calls it on a worker).
    package func answer(_ request: Request) -> (reply: Reply, waitFor: VoiceID?) {
        if case .play(let play, let wait) = request {
            do throws(FeedbackError) {
                let result = try self.play(play)
                var fields = Self.fields(of: result)
                if let voice = result.voice, let engine = engine(of: voice) { fields["device"] = engine.deviceName }
                return (.ok(fields), wait ? result.voice : nil)
            } catch {
                return (.error(error.code, error.message), nil)
            }
        }
        if case .waitForEnd(let text) = request {
            // Answered by the same wait as `play … wait=1`: the engine's end of the voice.
            guard let voice = VoiceID(text) else { return (.error(.badValue, Self.notAVoice(text)), nil) }
            return (.ok(["id": text]), voice)
        }
        return (reply(to: request), nil)
    }

    /// Stops `voice` now (an event's sound ended early); a stale id is ignored.
    package func stop(_ voice: VoiceID) {
        engine(of: voice)?.stop(voice)
    }

    /// Lets a looping `voice` play to the end of the round in progress and
    /// stop there (an event's timeout ran out); its end is told as any voice's.
    package func endLoop(_ voice: VoiceID) {
        engine(of: voice)?.endLoop(voice)
    }

    static func notAVoice(_ text: String) -> String {
        "\(ControlValue.quoted(text)) is not a voice id; use the id= of a play reply, such as 3.17"
    }

    /// Calls `heard` once `voice` has ended (or was stopped) and has been
    /// heard: on the engine's loop, the output's tail a timer there
    /// (`AudioEngine.whenHeard`); at once for a voice no engine plays.
    package func whenHeard(_ voice: VoiceID, _ heard: @escaping @Sendable () -> Void) {
        guard let audio = engine(of: voice) else { return heard() }
        audio.whenHeard(voice, heard)
    }

    /// Blocks until `voice` has ended (or was stopped) and has been heard
    /// (`whenHeard`): the embedded engine's `play … wait=1` and `wait ID`.
    package func waitForEnd(of voice: VoiceID) {
        engine(of: voice)?.waitUntilHeard(voice)
    }

    private func reply(to request: Request) -> Reply {
        do throws(FeedbackError) {
            switch request {
            case .play, .waitForEnd:
                preconditionFailure("answered by answer(_:)")
            case .vibrate(let vibrate):
                return try self.vibrate(vibrate)
            case .stop(let target):
                return try stop(target)
            case .stateGet(let file):
                return .ok(Self.fields(of: state, only: file))
            case .stateSet(let change):
                try set(change)
                return .ok(Self.fields(of: state, only: change.file))
            case .interruptBegin:
                try setInterrupted(true)
                return .ok(["interrupted": "1"])
            case .interruptEnd(let resumable):
                try setInterrupted(false, resumable: resumable)
                return .ok(["interrupted": "0", "resumed": resumable ? "1" : "0"])
            case .list(.sounds):
                let sounds = ThemeListing(theme: theme, configuration: configuration).sounds
                return .ok(["count": "\(sounds.count)"], records: sounds.map(Self.record))
            case .list(.presets):
                let presets = ThemeListing(theme: theme, configuration: configuration).hapticPresets
                return .ok(["count": "\(presets.count)"], records: presets.map {
                    ["name": $0.name, "pattern": $0.pattern, "duration-ms": "\($0.durationMs)"]
                })
            case .event:
                // They run on the daemon's loop (FeedbackEvents), which an embedded engine lacks.
                return .error(.badRequest, "theme events are run by the daemon (sysound serve); this engine runs none")
            case .ping:
                return .ok()
            case .status:
                return .ok(status(), records: hapticDeviceRecords() + ledRecords())
            }
        } catch {
            return .error(error.code, error.message)
        }
    }

    /// Vibrates a preset or pattern unless the haptics switch is off.
    func vibrate(_ request: VibrateRequest) throws(FeedbackError) -> Reply {
        seen(app: request.app)
        let desktop = desktop
        if let reason = Policy.decideVibration(state: state, app: request.app, settings: configuration.policy, desktop: desktop) {
            return .ok(["outcome": FeedbackOutcome.skip.rawValue, "reason": HapticSkipReason.policy(reason).rawValue])
        }
        guard let haptics else { throw FeedbackError(.noDevice, "no haptic device: haptics are not available in this process") }
        do throws(HapticsError) {
            switch request.source {
            case .preset(let name): try haptics.vibrate(preset: name, intensity: request.intensity * desktop.hapticScale, priority: 1)
            case .pattern(let pattern): try haptics.vibrate(pattern: pattern, intensity: request.intensity * desktop.hapticScale, priority: 1)
            case .score(let score):
                cueSounds(of: score, app: request.app, on: haptics)
                try haptics.vibrate(
                    score: score, intensity: request.intensity * desktop.hapticScale, priority: 1, delayNanoseconds: soundLatency(of: score))
            }
        } catch {
            return try Self.vibrateReply(.failure(error))
        }
        return .ok(["outcome": FeedbackOutcome.vibrate.rawValue])
    }

    /// Vibrates as `handle(.vibrate)` does, but answers once the vibration
    /// has started or failed, without blocking the caller: the daemon asks
    /// on its loop, which also lands the uploads a first vibration waits for.
    package func vibrate(_ request: VibrateRequest, answer: @escaping @Sendable (Reply) -> Void) {
        seen(app: request.app)
        // The desktop's inputs as `vibrate(_:)` takes them: the apps' levels
        // there (feedbackd's per-app profiles) and its strength cap.
        let desktop = desktop
        if let reason = Policy.decideVibration(state: state, app: request.app, settings: configuration.policy, desktop: desktop) {
            return answer(.ok(["outcome": FeedbackOutcome.skip.rawValue, "reason": HapticSkipReason.policy(reason).rawValue]))
        }
        guard let haptics else { return answer(.error(.noDevice, "no haptic device: haptics are not available in this process")) }
        let source: HapticSource
        var delay: UInt64 = 0
        switch request.source {
        case .pattern(let p): source = .pattern(p)
        case .preset(let name):
            do throws(HapticsError) { source = try haptics.source(ofPreset: name) } catch {
                return answer(Self.reply(to: .failure(error)))
            }
        case .score(let score):
            source = .score(score)
            delay = soundLatency(of: score)
            cueSounds(of: score, app: request.app, on: haptics)
        }
        haptics.vibrate(source, intensity: request.intensity * desktop.hapticScale, priority: 1, delayNanoseconds: delay) {
            answer(Self.reply(to: $0))
        }
    }

    /// How much later than its sounds' cues a score's vibration starts: the
    /// output's latency, by which each sound is heard after it is started,
    /// so that every moment is heard when it is felt, as a sound and its
    /// paired haptic are (`start`). None for a score without sounds.
    func soundLatency(of score: HapticScore) -> UInt64 {
        guard !score.sounds.isEmpty else { return 0 }
        // The event engine, where a score's sounds play; not opened here (the first cue opens it).
        return audio?.outputLatencyNanoseconds ?? 0
    }

    /// Starts a score's sounds at their times on the haptics engine's clock
    /// (which times the vibration's steps too), each through the policy as a
    /// `play` of its own: silent mode silences them, not the vibration. The
    /// vibration's schedule starts the output's latency later
    /// (`soundLatency(of:)`); a new pattern is uploaded first, and one that
    /// lands after that start plays its first step shortened, the rest on
    /// time.
    func cueSounds(of score: HapticScore, app: String?, on haptics: HapticsEngine) {
        for sound in score.sounds {
            let source: PlayRequest.Source = sound.name.contains("/" as Character) ? .file(sound.name) : .name(sound.name)
            let request = PlayRequest(source, gain: sound.volume, haptic: false, app: app)
            let play: @Sendable () -> Void = { [self] in
                do throws(FeedbackError) { _ = try self.play(request) } catch {
                    logger.warning("a haptic score's sound did not play", metadata: ["sound": "\(sound.name)", "error": "\(error)"])
                }
            }
            if sound.atMs == 0 { play() } else { haptics.cue(afterMs: sound.atMs, play) }
        }
    }

    static func reply(to result: Result<Void, HapticsError>) -> Reply {
        do throws(FeedbackError) { return try vibrateReply(result) } catch { return .error(error.code, error.message) }
    }

    /// The reply to a vibration's outcome: a skip is an `ok`; no device, a
    /// refusal or an upload too late are errors that say so.
    static func vibrateReply(_ result: Result<Void, HapticsError>) throws(FeedbackError) -> Reply {
        guard case .failure(let error) = result else { return .ok(["outcome": FeedbackOutcome.vibrate.rawValue]) }
        switch error {
        case .unknownPreset: throw FeedbackError(.unknownPreset, error.description)
        case .noDevice, .refused: throw FeedbackError(.noDevice, error.description)
        case .notUploaded:
            throw FeedbackError(.busy, "not vibrated: the device did not take the effect within \(HapticsEngine.uploadWaitLimitMs) ms")
        case .invalidLevel, .invalidPattern: throw FeedbackError(.badValue, error.description)
        case .outranked: return .ok(["outcome": FeedbackOutcome.skip.rawValue, "reason": HapticSkipReason.outranked.rawValue])
        default: throw FeedbackError(.internal, error.description)
        }
    }

    func stop(_ target: StopTarget) throws(FeedbackError) -> Reply {
        switch target {
        case .all:
            for engine in audioEngines { engine.stopAll() }
            haptics?.stop()
            deferred.withLock { $0 = [] }
        case .voice(let text):
            guard let voice = VoiceID(text) else {
                throw FeedbackError(.badValue, Self.notAVoice(text))
            }
            engine(of: voice)?.stop(voice)
        }
        return .ok()
    }

    /// Writes a setting's control file (atomically); the change applies at
    /// once, before the reply.
    func set(_ change: StateChange) throws(FeedbackError) {
        let old = state
        try write(change.file, change.content)
        var new = old
        change.apply(to: &new)
        wrote(change.file, changing: old, to: new)
    }

    /// Begins or ends an interruption: the control file records it for every
    /// process. An end is applied first, because `resumable` is only known here
    /// (the watcher, seeing the file, then finds nothing left to end).
    func setInterrupted(_ on: Bool, resumable: Bool = false) throws(FeedbackError) {
        let old = state
        if !on { endInterruption(resumable: resumable) }
        try write(.interrupted, on ? "1" : "0")
        var new = old
        new.interrupted = on
        wrote(.interrupted, changing: old, to: new)
    }

    private func write(_ file: ControlFile, _ content: String) throws(FeedbackError) {
        do {
            try controls.write(file, content)
        } catch {
            throw FeedbackError(.internal, error.description)
        }
    }

    /// Makes a change this manager wrote take effect through the one path that
    /// owns changes (see `SettingsSource`).
    private func wrote(_ file: ControlFile, changing old: SystemState, to new: SystemState) {
        switch settings {
        case .watched(let watcher): watcher.refresh(file)
        case .read: stateChanged(from: old, to: new)
        }
    }

    func status() -> WireFields {
        var fields: WireFields = ["audio": audio?.deviceName ?? "none"]
        let engines = audioEngines
        fields["voices"] = "\(engines.reduce(0) { $0 + $1.voiceCount })"
        fields["playing"] = "\(engines.reduce(0) { $0 + $1.activeVoiceCount })"
        if audio != nil { fields["media-roles"] = openMediaRoles.map(\.rawValue).joined(separator: ",") }
        // The gaps heard because the server ran out of sysound's audio while a
        // sound played: what a user hearing a crackle can check, and what tells a
        // gap of sysound's (late writes) from one of the server's (none counted).
        let underflows = engines.compactMap(\.streamUnderflows)
        if !underflows.isEmpty { fields["audio-underflows"] = "\(underflows.reduce(0, +))" }
        fields["haptic-devices"] = "\(haptics?.devices.count ?? 0)"
        fields["leds"] = leds.map { "\($0.lights.count)" } ?? "off ([leds] enabled = false)"
        if let haptics {
            fields["haptic-profile"] = haptics.profile?.description ?? "none (built-in presets; no profile for this device tree or DMI name)"
            fields["haptic-choice"] = haptics.deviceChoice.description
        }
        for field in Self.fields(of: state, only: nil) { fields[field.key] = field.value }
        fields["profile"] = FeedbackProfile(state: state).rawValue
        fields["config"] = configuration.file ?? "built-in defaults"
        let apps = appsSeen.withLock { $0.summary }
        if !apps.isEmpty { fields["apps"] = apps }
        // The desktop's switches as the policy sees them; each source's own
        // reading is among the face facts (`gnome-…`, `feedbackd-…`, `plasma-…`: SysoundDesktop).
        let desktop = desktop
        fields["do-not-disturb"] = desktop.doNotDisturb ? "on" : "off"
        fields["event-sounds"] = desktop.eventSounds ? "on" : "off"
        fields["input-feedback-sounds"] = desktop.inputFeedbackSounds ? "on" : "off"
        if let xdg = xdgTheme { fields["xdg-theme"] = xdg }
        for (key, value) in faceStatus.withLock({ $0 }).sorted(by: { $0.key < $1.key }) { fields[key] = value }
        return fields
    }

    /// One record per force-feedback device found: used or why not.
    func hapticDeviceRecords() -> [WireFields] {
        (haptics?.settledDeviceReport() ?? []).map { d in
            var r: WireFields = ["haptic-device": d.path, "name": d.name, "used": d.used ? "1" : "0", "why": d.reason]
            if let effect = d.effect { r["effect"] = effect.rawValue }
            r["amplitude"] = d.motor.amplitudeControl ? "1" : "0"
            r["motor"] = d.motor.motor.rawValue
            r["minimum-pulse-ms"] = "\(d.motor.minimumPulseMs)"
            return r
        }
    }

    // MARK: - Reply fields

    /// A play's reply fields: its wire form, built in this one place.
    package static func fields(of result: PlayResult) -> WireFields {
        var fields = WireFields(capacity: 6)  // all a play's reply can say, without regrowing
        if let voice = result.voice { fields["id"] = voice.wireID }
        fields["outcome"] = result.outcome.rawValue
        fields["category"] = result.decision.category.rawValue
        if let reason = result.decision.soundSkipReason { fields["reason"] = reason.rawValue }
        switch result.haptic {
        case .notDue: break
        case .started(let preset): fields["haptic"] = preset
        case .skipped(let reason): fields["haptic-skipped"] = reason.rawValue
        case .failed(let message): fields["haptic-problem"] = message
        }
        if let ms = result.durationMs { fields["duration-ms"] = "\(ms)" }
        if result.flashed { fields["flash"] = "1" }
        return fields
    }

    static func fields(of state: SystemState, only file: ControlFile?) -> WireFields {
        var fields = WireFields()
        for control in ControlFile.allCases where file == nil || file == control {
            fields[control.rawValue] = control.content(of: state)
        }
        return fields
    }

    static func record(_ sound: ThemeListing.Sound) -> WireFields {
        var r: WireFields = ["name": sound.name, "category": sound.category]
        if let duration = sound.durationMs { r["duration-ms"] = "\(duration)" }
        if let haptic = sound.haptic { r["haptic"] = haptic }
        if sound.loopable { r["loopable"] = "1" }
        if !sound.aliases.isEmpty { r["aliases"] = sound.aliases.joined(separator: ",") }
        return r
    }
}
