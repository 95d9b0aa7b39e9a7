import SysoundCore

/// A request answered when its outcome is known, without blocking: for the
/// daemon, whose requests arrive on the loop that also lands the uploads.
extension HapticsEngine {
    /// Runs `work` on the engine's loop `milliseconds` from now: the clock by
    /// which a score's sounds keep time with its vibration, whose steps this
    /// loop times too. A shut-down engine drops what is still to come.
    package func cue(afterMs milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
        host.loop.post { [self] in
            let o = owned
            guard o.running else { return }
            let number = o.nextCue
            o.nextCue += 1
            do {
                o.cues[number] = try host.loop.addTimer(after: UInt64(max(milliseconds, 0)) * 1000, accuracy: .exact) { [weak self] _ in
                    self?.owned.cues[number] = nil
                    work()
                }
            } catch {
                logger.error("a score's cue could not be timed, so it runs now", metadata: ["error": "\(error)"])
                work()
            }
        }
    }

    /// Vibrates with `source` (as `vibrate(_:)`, waiting for its upload if
    /// need be; a score rendered for each device) and calls `answer` once it
    /// has started, or with why it did not: a refusal naming the device, no
    /// device, an upload too late. Never blocks; `answer` runs on the loop
    /// thread (or at once, on this thread, for a request refused before it
    /// gets there).
    package func vibrate(
        _ source: HapticSource, intensity: Double = 1, priority: Int = 0, delayNanoseconds: UInt64 = 0,
        answer: @escaping @Sendable (Result<Void, HapticsError>) -> Void
    ) {
        do throws(HapticsError) {
            if case .pattern(let pattern) = source { try HapticsError.validate(pattern) }
            try HapticsError.checkLevel(intensity, name: "intensity")
        } catch {
            return answer(.failure(error))
        }
        let requested = MonotonicClock.now()
        let outcome = WaitOutcome(then: answer)
        host.loop.perform { [self] in
            do throws(HapticsError) {
                let rendition = try rendition(source, intensity: intensity, for: owned.core.devices.values.map(\.motor))
                try request(rendition, priority: priority, whenNotUploaded: .startWhenUploaded, requested: requested, delay: delayNanoseconds, outcome: outcome)
            } catch {
                outcome.finish(.failure(error))
            }
        }
    }
}
