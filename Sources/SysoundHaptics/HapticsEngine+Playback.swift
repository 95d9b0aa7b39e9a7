import Logging
import SysoundEventLoop

/// Playback on the loop: a request starts its pattern or waits for its
/// upload, the step timer walks the pattern on the monotonic clock.
extension HapticsEngine {
    /// Starts `plan` if a device holds its effects; otherwise as `whenNotUploaded` says.
    func request(
        _ plan: PatternPlan, priority: Int, whenNotUploaded: WhenNotUploaded, requested: UInt64, delay: UInt64
    ) throws(HapticsError) {
        let o = owned
        guard o.running else { throw .notRunning }
        guard !o.core.devices.isEmpty else { throw .noDevice }
        try o.core.checkPriority(priority)
        defer { settle() }
        // The write first (a device holds the first effect), the bookkeeping after it.
        if o.core.devices.keys.contains(where: { o.core.isReady(plan, on: $0) }) {
            o.waiting = nil
            let now = max(requested, MonotonicClock.now())
            try o.core.start(plan, priority: priority, now: now, anchor: delay > 0 ? requested + delay : now)
            afterStep()
            return
        }
        for path in o.core.devices.keys.sorted() {
            o.core.want(o.core.effects(of: plan, on: path), on: path)
            pump(path)
        }
        switch whenNotUploaded {
        case .skip: throw .notUploaded
        case .startWhenUploaded: o.waiting = Waiting(plan: plan, priority: priority, requested: requested)
        }
    }

    /// Starts the vibration waiting for its upload once a device holds its
    /// effects, or drops it when none will or it waited too long.
    func resolveWaiting() {
        let o = owned
        guard let w = o.waiting else { return }
        let ready = o.core.devices.keys.contains { o.core.isReady(w.plan, on: $0) }
        guard ready || !o.core.devices.values.contains(where: \.isUploading) else { return }
        o.waiting = nil
        let now = MonotonicClock.now()
        let waitedMs = Int((now - w.requested) / 1_000_000)
        guard ready, waitedMs <= Self.uploadWaitLimitMs else {
            logger.info("vibration dropped: its effects were not uploaded in time", metadata: ["waited-ms": "\(waitedMs)"])
            return
        }
        // Anchored at the request, as if the upload had been instant: the
        // first step plays now, the others on the pattern's own schedule;
        // a wait longer than the first step moves the schedule just enough
        // for that step still to play (shortened), as a late first pulse.
        let firstStep = UInt64(w.plan.segments.first?.durationMs ?? 0) * 1_000_000
        let anchor = max(w.requested, now + 1_000_000 > firstStep ? now + 1_000_000 - firstStep : 0)
        do {
            try o.core.start(w.plan, priority: w.priority, now: now, anchor: min(anchor, now))
        } catch {
            logger.debug("vibration not started after its upload: \(error)")
        }
        afterStep()
    }

    /// After a step: uploads what the pattern needs next, and arms the timer.
    private func afterStep() {
        for path in owned.core.devices.keys.sorted() {
            owned.core.want(owned.core.upcoming(on: path), on: path)
            pump(path)
        }
        armStepTimer()
    }

    /// The step timer fires at the next step's deadline (1 µs accuracy).
    func armStepTimer() {
        let o = owned
        guard let deadline = o.core.nextDeadline else {
            o.stepTimer?.setEnabled(false)
            return
        }
        let usec = (deadline + 999) / 1000
        if let timer = o.stepTimer { return timer.schedule(at: usec) }
        do {
            o.stepTimer = try host.loop.addTimer(at: usec, accuracy: .exact) { [weak self] _ in self?.step() }
        } catch {
            logger.error("haptic step timer: \(error)")
        }
    }

    private func step() {
        owned.core.advance(now: MonotonicClock.now())
        afterStep()
        settle()
    }
}
