import SysoundCore

/// The primitives the policy layer drives beyond a play: stops, the system
/// volume, and interruptions (a call pauses what may resume and drops the rest).
extension AudioEngine {
    /// Stops one voice now; a stale ID is ignored.
    package func stop(_ voice: VoiceID) {
        locked {
            guard core.pool.isCurrent(voice) else { return }
            output?.makeCurrent()
            finish(slot: voice.slot)
            lock.broadcast()
        }
    }

    /// Ends a looping voice's loop: it plays to the end of the round in
    /// progress and stops there (AL_LOOPING off); a stale ID is ignored. On
    /// OpenAL Soft's device the monitor looks again, as the voice now has an
    /// end to foresee; the own stream's render tells it by itself.
    package func endLoop(_ voice: VoiceID) {
        let foresee = locked { () -> Bool in
            guard core.pool.isCurrent(voice), let out = output else { return false }
            out.makeCurrent()
            AL.setLooping(source: core.sources[voice.slot], false)
            return out.whoMixes == .device
        }
        if foresee { monitor?.wake() }
    }

    /// Stops every voice.
    package func stopAll() { stopVoices(categories: Set(SoundCategory.allCases)) }

    /// Stops the voices of these categories (silent mode on: `[.ambient, .soloAmbient]`).
    package func stopVoices(categories: Set<SoundCategory>) {
        locked {
            output?.makeCurrent()
            for i in 0..<core.pool.count where core.pool[i].isActive && categories.contains(core.pool[i].category) {
                finish(slot: i)
            }
            lock.broadcast()
        }
    }

    /// The system volume (0–1) the engine applies now.
    package var appliedVolume: Double { locked { Double(core.volume) } }

    /// The system volume (0–1) the engine applies; changing it re-applies the
    /// gain of every voice now playing.
    package func setVolume(_ newValue: Double) {
        locked {
            core.volume = newValue.isFinite ? Float(min(max(newValue, 0), 1)) : 0
            output?.makeCurrent()
            applyGains()
        }
    }

    /// An interruption begins (e.g. a phone call): `playback` and `alert`
    /// voices pause where they are, ambient voices stop.
    package func beginInterruption() {
        locked {
            output?.makeCurrent()
            core.interrupted = true
            for i in 0..<core.pool.count where core.pool[i].phase == .playing {
                switch core.pool[i].category.interruptionRule {
                case .notStarted: finish(slot: i)
                case .deferredUntilResumableEnd:
                    AL.pause(source: core.sources[i])
                    core.pool[i].phase = .paused
                }
            }
            lock.broadcast()
        }
    }

    /// The interruption ends: paused voices resume where they were when
    /// `resumable`, else they are dropped.
    package func endInterruption(resumable: Bool) {
        let out = locked { () -> (writer: (any MixWriter)?, foresees: Bool)? in
            output?.makeCurrent()
            core.interrupted = false
            for i in 0..<core.pool.count where core.pool[i].phase == .paused {
                if resumable {
                    core.pool[i].phase = .playing
                    AL.resume(source: core.sources[i])
                } else {
                    finish(slot: i)
                }
            }
            lock.broadcast()
            return output.map { ($0.writer, $0.whoMixes == .device) }
        }
        // Resumed voices are written from now on; on OpenAL Soft's device the
        // check foresees their ends.
        if resumable, let out {
            if let writer = out.writer { writer.kick() } else if out.foresees { monitor?.wake() }
        }
    }

    /// Whether an interruption is in progress.
    package var isInterrupted: Bool { locked { core.interrupted } }
}
