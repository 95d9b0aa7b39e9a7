import SysoundCore

/// A request answered when its outcome is known, without blocking: for the
/// daemon, whose requests arrive on the loop that also lands the uploads.
extension HapticsEngine {
    /// The preset `name`'s pattern.
    public func pattern(forPreset name: String) throws(HapticsError) -> HapticPattern {
        guard let pattern = presets.withLock({ $0[name] }) else { throw .unknownPreset(name, known: presetNames) }
        return pattern
    }

    /// Vibrates with `pattern` (as `vibrate(pattern:)`, waiting for its upload
    /// if need be) and calls `answer` once it has started, or with why it did
    /// not: a refusal naming the device, no device, an upload too late. Never
    /// blocks; `answer` runs on the loop thread (or at once, on this thread,
    /// for a request refused before it gets there).
    public func vibrate(
        pattern: HapticPattern, intensity: Double = 1, priority: Int = 0,
        answer: @escaping @Sendable (Result<Void, HapticsError>) -> Void
    ) {
        do throws(HapticsError) {
            try HapticsError.validate(pattern)
            try HapticsError.checkLevel(intensity, name: "intensity")
        } catch {
            return answer(.failure(error))
        }
        let plan = plan(pattern, intensity: intensity)
        let requested = MonotonicClock.now()
        let outcome = WaitOutcome(then: answer)
        host.loop.perform { [self] in
            do throws(HapticsError) {
                try request(plan, priority: priority, whenNotUploaded: .startWhenUploaded, requested: requested, delay: 0, outcome: outcome)
            } catch {
                outcome.finish(.failure(error))
            }
        }
    }
}
