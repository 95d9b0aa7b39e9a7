import SysoundAudio
import SysoundConfig
import SysoundCore
import SysoundHaptics

/// What a play request did, for the reply and the CLI's messages.
package struct PlayResult: Sendable, Equatable {
    package var decision: Decision
    /// The voice that plays, if one was started.
    package var voice: VoiceID?
    /// The clip's length in seconds, if it was loaded.
    package var duration: Double?
    /// The same in whole milliseconds, as the reply gives it (and the library's
    /// `Playback`, made from this result without the reply).
    package var durationMs: Int? { duration.map { Int($0 * 1000) } }
    /// What became of the vibration the policy asked for.
    package var haptic: HapticResult
    /// Whether the flash for alerts flashed for it.
    package var flashed = false
    /// The voice repeats until it is stopped or its loop ended (a loop asked
    /// of a loopable sound); false for one that plays once.
    package var loops = false

    /// The vibration as carried out, which the policy's decision cannot know:
    /// a machine without a rumble device vibrates nothing, and says so.
    package enum HapticResult: Sendable, Equatable {
        /// None was due.
        case notDue
        /// This preset started.
        case started(String)
        /// Not done, and why.
        case skipped(HapticSkipReason)
        /// Due and possible, but it failed (e.g. the theme names an unknown preset).
        case failed(String)
    }

    /// Why nothing was heard or felt, for people: the sound's skip reason,
    /// else the vibration's; nil when something played.
    package var skipReason: String? {
        if voice != nil { return nil }
        if case .started = haptic { return nil }
        if let reason = decision.soundSkipReason { return reason.rawValue }
        switch haptic {
        case .skipped(let reason): return reason.rawValue
        case .failed(let message): return message
        case .notDue, .started: return nil
        }
    }

    /// The four shapes of the behaviour model, as carried out.
    package var outcome: FeedbackOutcome {
        let vibrates = if case .started = haptic { true } else { false }
        switch decision.sound {
        case .deferred: return .deferred
        case .play: return vibrates ? .playAndVibrate : .play
        case .skip: return vibrates ? .vibrateInstead : .skip
        }
    }
}

/// Why a request could not be carried out at all (as opposed to being
/// correctly silenced, which is a successful `PlayResult`).
package struct FeedbackError: Error, Sendable, Equatable, CustomStringConvertible {
    package var code: WireErrorCode
    package var message: String
    package var description: String { message }

    package init(_ code: WireErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    init(_ error: AudioError) {
        switch error {
        case .noOutputDevice, .deviceUnavailable: self.init(.noDevice, error.description)
        case .badFile, .clipTooLong, .preloadBudgetExceeded: self.init(.badFile, error.description)
        default: self.init(.internal, error.description)
        }
    }
}

extension FeedbackManager {
    /// Plays (or correctly silences) a sound: resolves its name, asks the
    /// policy, then starts the voice and its paired vibration.
    package func play(_ request: PlayRequest) throws(FeedbackError) -> PlayResult {
        seen(app: request.app)
        let (entry, setup) = try resolve(request.source)
        let decision = Policy.decide(request, entry: entry, state: state, settings: setup.configuration.policy, desktop: desktop)
        var result: PlayResult
        switch decision.sound {
        case .skip:
            result = try start(nil, on: nil, request, entry: entry, decision: decision)
        case .deferred:
            let clip = try clip(for: entry, on: try playEngine(request, entry: entry))
            deferred.withLock { d in
                if d.count == Self.maximumDeferred { d.removeFirst() }
                d.append(DeferredPlay(clip: clip, request: request, entry: entry))
            }
            result = try start(nil, on: nil, request, entry: entry, decision: decision)
        case .play:
            // The role's engine once per play: the clip, the haptic's delay and the voice all use it.
            let engine = try playEngine(request, entry: entry)
            result = try start(try clip(for: entry, on: engine), on: engine, request, entry: entry, decision: decision)
        }
        result.flashed = flashForAlert(decision.category, request)
        return result
    }

    /// The engine of the role `request` plays `entry` in (opened if need be).
    func playEngine(_ request: PlayRequest, entry: SoundEntry) throws(FeedbackError) -> AudioEngine {
        do throws(AudioError) {
            return try engine(for: role(of: request, entry: entry))
        } catch {
            throw FeedbackError(error)
        }
    }

    /// Acts on a decision: starts the voice (if `clip` is given, loaded into
    /// `engine`, and the decision plays) and the vibration together.
    func start(
        _ clip: Clip?, on engine: AudioEngine?, _ request: PlayRequest, entry: SoundEntry, decision: Decision
    ) throws(FeedbackError) -> PlayResult {
        var result = PlayResult(decision: decision, voice: nil, duration: clip?.duration, haptic: .notDue)
        switch decision.haptic {
        case .none: break
        case .skip(let reason): result.haptic = .skipped(.policy(reason))
        case .vibrate(let preset):
            // The sound is heard the output's latency after it starts: the haptic
            // starts then too (nothing to wait for without a sound, or on loopback).
            // Asked only here: the query takes the engine's lock, which a play
            // without a vibration need not take twice.
            let sounds = if case .play = decision.sound, clip != nil { true } else { false }
            let latency = sounds ? (engine?.outputLatencyNanoseconds ?? 0) : 0
            result.haptic = vibrate(
                preset: preset, intensity: desktop.hapticScale, priority: decision.category.voicePriority, delayNanoseconds: latency)
        }
        if case .play(let gain) = decision.sound, let clip, let engine {
            do {
                let voice = try engine.play(
                    clip, gain: gain, rate: request.rate, category: decision.category,
                    priority: entry.priority, loop: request.loop && entry.loopable, duck: request.duck)
                if request.duck { duckOtherRoles(for: voice, on: engine) }
                result.voice = voice
                result.loops = request.loop && entry.loopable
            } catch {
                throw FeedbackError(error)
            }
        }
        return result
    }

    /// Starts a sound's vibration, `delayNanoseconds` from now (when the
    /// sound is heard); a missing device is a skip, not a failure. It never
    /// waits for an upload: the sound starts now, and a haptic that cannot
    /// start with it is skipped (`.uploading`) rather than felt late.
    func vibrate(preset: String, intensity: Double = 1, priority: Int, delayNanoseconds: UInt64 = 0) -> PlayResult.HapticResult {
        guard let haptics else { return .skipped(.noDevice) }
        do {
            try haptics.vibrate(
                preset: preset, intensity: intensity, priority: priority, whenNotUploaded: .skip,
                delayNanoseconds: delayNanoseconds)
            return .started(preset)
        } catch {
            switch error {
            case .noDevice: return .skipped(.noDevice)
            case .outranked: return .skipped(.outranked)
            case .notUploaded: return .skipped(.uploading)
            default: return .failed(error.description)
            }
        }
    }

    /// The theme entry for a request's source, with the setup it was resolved under.
    func resolve(_ source: PlayRequest.Source) throws(FeedbackError) -> (SoundEntry, Setup) {
        let setup = setup.withLock { $0 }
        switch source {
        case .name(let name):
            do throws(ResolveError) {
                return (try setup.theme.resolve(name).entry, setup)
            } catch {
                throw FeedbackError(.unknownSound, error.description)
            }
        case .file(let path):
            return (SoundEntry(name: path, file: path), setup)
        }
    }

    /// The decoded clip for an entry in `audio`, its role's engine: preloaded
    /// (the event engine's theme), or loaded now (embedded engine, XDG
    /// fallback sounds, ad-hoc files, the first play of a sound with another role).
    func clip(for entry: SoundEntry, on audio: AudioEngine) throws(FeedbackError) -> Clip {
        do throws(AudioError) {
            if entry.name == entry.file { return try audio.clip(forFile: entry.file) }
            // Not loaded (evicted, or a role engine's first play): loaded below, whose error is thrown.
            if let clip = try? audio.clip(named: entry.name) { return clip }
            let report = audio.preload([ClipSource(name: entry.name, path: entry.file, gain: entry.gain)])
            if let failure = report.failures.first { throw failure }
            return try audio.clip(named: entry.name)
        } catch {
            throw FeedbackError(error)
        }
    }
}
