import SysoundCore

/// What the engines of other media roles ask of this one (AudioRoles in
/// SysoundFeedback keeps one engine per role in use). Every engine shares
/// the one process-wide `ALLock`, so one engine may change another's
/// levels under it.
extension AudioEngine {
    /// `voice` (of this engine) ducks: the voices of `others` duck with it,
    /// by the same `duck_db` and ramp as one of their own would, until it
    /// ends (played out, stopped, stolen, or the engine closed). Their ramps
    /// move at their next tick, which runs while anything of them plays;
    /// with nothing playing there is nothing to duck.
    package func duck(_ others: [AudioEngine], whilePlaying voice: VoiceID) {
        locked {
            guard !closed, pool.isCurrent(voice), !others.isEmpty else { return }
            for other in others { other.pool.heldDucks += 1 }
            // Told with the lock held (tellEnded), which guards the others' counts too.
            endObservers[voice, default: []].append {
                for other in others { other.pool.heldDucks = max(0, other.pool.heldDucks - 1) }
            }
        }
    }

    /// Whether another role's ducking voice holds this engine's voices down.
    public var isDuckHeld: Bool { locked { pool.heldDucks > 0 } }
}
