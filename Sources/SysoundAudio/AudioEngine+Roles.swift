import SysoundCore
import Synchronization

/// What the engines of other media roles ask of this one (AudioRoles in
/// SysoundFeedback keeps one engine per role in use). Each engine has its
/// own lock and takes no other's: another role's ducking voice reaches this
/// engine only through `duckHolds`, a count it changes without a lock.
extension AudioEngine {
    /// `voice` (of this engine) ducks: the voices of `others` duck with it,
    /// by the same `duck_db` and ramp as one of their own would, until it
    /// ends (played out, stopped, stolen, or the engine closed). Their ramps
    /// move at their next tick, which runs while anything of them plays;
    /// with nothing playing there is nothing to duck.
    package func duck(_ others: [AudioEngine], whilePlaying voice: VoiceID) {
        locked {
            guard !others.isEmpty else { return }
            // Told with this engine's lock held (`finish`): the others' counts are atomics, not under it.
            guard core.observe(voice, { for other in others { other.releaseDuckHold() } }) else { return }
            for other in others { other.duckHolds.add(1, ordering: .relaxed) }
        }
    }

    /// Whether another role's ducking voice holds this engine's voices down.
    package var isDuckHeld: Bool { duckHolds.load(ordering: .relaxed) > 0 }

    /// One ducking voice of another role ended (never below 0).
    private func releaseDuckHold() {
        var held = duckHolds.load(ordering: .relaxed)
        while held > 0 {
            let (done, now) = duckHolds.compareExchange(expected: held, desired: held - 1, ordering: .relaxed)
            if done { return }
            held = now
        }
    }
}
