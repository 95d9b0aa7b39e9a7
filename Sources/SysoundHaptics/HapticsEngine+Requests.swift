#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SysoundCore

extension HapticsEngine {
    /// Vibrates with the preset `name`, magnitudes × `intensity` (0–1).
    /// Replaces a running vibration of lower or equal `priority`.
    package func vibrate(
        preset name: String, intensity: Double = 1, priority: Int = 0, whenNotUploaded: WhenNotUploaded = .startWhenUploaded,
        delayNanoseconds: UInt64 = 0
    ) throws(HapticsError) {
        try vibrate(
            try source(ofPreset: name), intensity: intensity, priority: priority, whenNotUploaded: whenNotUploaded,
            delayNanoseconds: delayNanoseconds)
    }

    /// Vibrates with a designer's description (an AHAP pattern, a
    /// composition of Android's primitives), each device playing it as well
    /// as its motor can (`HapticScore.rendered(for:)`); otherwise as
    /// `vibrate(pattern:)`. Its sounds are the caller's (`cue(afterMs:_:)`).
    package func vibrate(
        score: HapticScore, intensity: Double = 1, priority: Int = 0, whenNotUploaded: WhenNotUploaded = .startWhenUploaded,
        delayNanoseconds: UInt64 = 0
    ) throws(HapticsError) {
        try vibrate(
            .score(score), intensity: intensity, priority: priority, whenNotUploaded: whenNotUploaded, delayNanoseconds: delayNanoseconds)
    }

    /// Vibrates with `pattern`, magnitudes × `intensity` (0–1). Replaces a
    /// running vibration of lower or equal `priority`; throws `.outranked`
    /// otherwise, `.noDevice` when there is nothing to vibrate.
    ///
    /// `delayNanoseconds` puts the pattern's start that much after the
    /// request (a haptic paired with a sound starts when the sound is heard,
    /// the audio output's latency later); its first step is then a timer on
    /// the loop, not a write now. It replaces what plays at that instant.
    /// One that waits for its upload starts at that time if it landed by
    /// then, else as soon as it lands.
    package func vibrate(
        pattern: HapticPattern, intensity: Double = 1, priority: Int = 0, whenNotUploaded: WhenNotUploaded = .startWhenUploaded,
        delayNanoseconds: UInt64 = 0
    ) throws(HapticsError) {
        try HapticsError.validate(pattern)
        try vibrate(
            .pattern(pattern), intensity: intensity, priority: priority, whenNotUploaded: whenNotUploaded, delayNanoseconds: delayNanoseconds)
    }

    /// Vibrates with `source`, rendered on the loop for the devices there.
    package func vibrate(
        _ source: HapticSource, intensity: Double = 1, priority: Int = 0, whenNotUploaded: WhenNotUploaded = .startWhenUploaded,
        delayNanoseconds: UInt64 = 0
    ) throws(HapticsError) {
        try HapticsError.checkLevel(intensity, name: "intensity")
        // Answered from the snapshot when there is nothing to do, without a
        // trip to the loop or an allocation (the library's play path on a
        // machine without a rumble device). The loop decides the rest.
        let offLoop = !host.loop.isLoopThread && host.loop.isRunning
        let requested = MonotonicClock.now()
        try snapshot.withLock { s throws(HapticsError) in
            guard s.running else { throw .notRunning }
            guard s.devices.isEmpty else { return }
            // Nodes still opening (an embedded engine just started): a caller
            // that can wait does, so that its answer is about the device.
            guard offLoop && s.opening && whenNotUploaded == .startWhenUploaded else { throw s.refusal ?? .noDevice }
        }
        if offLoop && whenNotUploaded == .startWhenUploaded {
            let deadline = requested + UInt64(Self.uploadWaitLimitMs) * 1_000_000
            // Until a node found at start has opened (a one-shot engine has
            // just started; its workers may be busy opening audio). Nodes
            // still opening after that join the waiting vibration as they open.
            while snapshot.withLock({ $0.devices.isEmpty && $0.opening }) && MonotonicClock.now() < deadline { usleep(1000) }
        }
        // Off the loop a request that waits for its upload waits for the
        // outcome too: "vibrated" only when a device played it. On the loop
        // (the daemon's own thread) it cannot block; the presets it plays
        // were uploaded when the device appeared, so a refusal is known by then.
        let outcome = offLoop && whenNotUploaded == .startWhenUploaded ? WaitOutcome() : nil
        try onLoop { [self] () throws(HapticsError) in
            let rendition = try rendition(source, intensity: intensity, for: owned.core.devices.values.map(\.motor))
            try request(rendition, priority: priority, whenNotUploaded: whenNotUploaded, requested: requested, delay: delayNanoseconds, outcome: outcome)
        }
        guard let outcome else { return }
        let deadline = requested + UInt64(Self.uploadWaitLimitMs + 50) * 1_000_000
        while MonotonicClock.now() < deadline {
            if let result = outcome.result.withLock({ $0 }) { return try result.get() }
            usleep(1000)
        }
        throw .notUploaded
    }

    /// `source` as played here, rendered for `motors` (the devices'): the
    /// profile's minimum pulse applies to requests and preloads alike, so
    /// that a preloaded effect is the one played.
    func rendition(_ source: HapticSource, intensity: Double, for motors: [MotorAbility]) throws(HapticsError) -> Rendition {
        try Rendition(source, intensity: intensity, minimumPulseMs: profile?.profile.minimumPulseMs ?? 0, motors: motors)
    }

    /// The preset `name`: a step pattern, or a score each device renders.
    package func source(ofPreset name: String) throws(HapticsError) -> HapticSource {
        guard let source = presets.withLock({ $0[name] }) else { throw .unknownPreset(name, known: presetNames) }
        return source
    }

    /// `deviceReport` once the devices found are open and their first
    /// uploads answered (a refusal shows), waiting up to `limitMs` when the
    /// caller is not the loop thread (an engine that has just started).
    package func settledDeviceReport(limitMs: Int = 1000) -> [HapticDeviceStatus] {
        if !host.loop.isLoopThread && host.loop.isRunning {
            let deadline = MonotonicClock.now() + UInt64(limitMs) * 1_000_000
            while snapshot.withLock({ $0.opening || $0.uploading }) && MonotonicClock.now() < deadline { usleep(1000) }
        }
        return deviceReport
    }
}
