import Logging
import SysoundPlatform

/// Playback on the loop: a request starts its pattern or waits for its
/// upload, the step timer walks the pattern on the monotonic clock.
extension HapticsEngine {
    /// Starts `plan` if a device holds its effects; otherwise as `whenNotUploaded` says.
    func request(
        _ plan: PatternPlan, priority: Int, whenNotUploaded: WhenNotUploaded, requested: UInt64, delay: UInt64,
        outcome: WaitOutcome? = nil
    ) throws(HapticsError) {
        let o = owned
        guard o.running else { throw .notRunning }
        guard !o.core.devices.isEmpty else { throw o.refusal ?? .noDevice }
        try o.core.checkPriority(priority)
        defer { settle() }
        // The write first (a device holds the first effect), the bookkeeping after it.
        if o.core.devices.keys.contains(where: { o.core.isReady(plan, on: $0) }) {
            o.waiting?.outcome?.finish(.failure(.notUploaded))
            o.waiting = nil
            outcome?.finish(.success(()))
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
        case .startWhenUploaded:
            o.waiting?.outcome?.finish(.failure(.notUploaded))
            o.waiting = Waiting(plan: plan, priority: priority, requested: requested, delay: delay, outcome: outcome)
            // An upload refused at once (the request's own job) resolves it now.
            resolveWaiting()
        }
    }

    /// Starts the vibration waiting for its upload once the devices hold its
    /// effects, or drops it when none will or it waited too long. With one
    /// device ready and others still uploading it waits a moment
    /// (`otherDevicesGraceMs`) so that they all start together, not one a
    /// step late.
    func resolveWaiting() {
        let o = owned
        guard let w = o.waiting else { return }
        let now = MonotonicClock.now()
        let ready = o.core.devices.keys.contains { o.core.isReady(w.plan, on: $0) }
        // Devices that do not hold the first effect yet and are uploading:
        // worth a moment's wait, so that all start together. A device that
        // holds it starts now and uploads the pattern's later effects as it plays.
        let uploading = o.core.devices.contains { !o.core.isReady(w.plan, on: $0.key) && $0.value.isUploading }
            || !o.opening.isEmpty  // a node found at start that is still opening joins when it opens
        let expired = now >= w.requested + UInt64(Self.uploadWaitLimitMs) * 1_000_000
        let graceEnd = w.requested + UInt64(Self.otherDevicesGraceMs) * 1_000_000
        if uploading && !expired && (!ready || now < graceEnd) {
            armWaitTimer(at: ready ? graceEnd : w.requested + UInt64(Self.uploadWaitLimitMs) * 1_000_000)
            return
        }
        o.waiting = nil
        o.waitTimer?.setEnabled(false)
        let waitedMs = Int((now - w.requested) / 1_000_000)
        // The wait timer fires at the limit itself; a landing the loop takes
        // in a few ms later is still an answer in time.
        guard ready, waitedMs <= Self.uploadWaitLimitMs + 20 else {
            // Said to a caller that waits (the CLI, the library): a refusal
            // names the device; otherwise the upload was too late.
            let refusal = o.core.devices.isEmpty ? o.refusal : nil
            logger.info("vibration dropped: its effects were not uploaded in time", metadata: ["waited-ms": "\(waitedMs)", "refused": "\(refusal.map { "\($0)" } ?? "no")"])
            w.outcome?.finish(.failure(refusal ?? (o.core.devices.isEmpty ? .noDevice : .notUploaded)))
            return
        }
        // Anchored at the request, as if the upload had been instant: the
        // first step plays now, the others on the pattern's own schedule;
        // a wait longer than the first step moves the schedule just enough
        // for that step still to play (shortened), as a late first pulse.
        // A delayed one (paired with sound) that landed before its start is
        // timed from there, as if it had never waited.
        let firstStep = UInt64(w.plan.segments.first?.durationMs ?? 0) * 1_000_000
        let due = w.requested + w.delay
        let anchor = due > now ? due : min(max(due, now + 1_000_000 > firstStep ? now + 1_000_000 - firstStep : 0), now)
        do {
            try o.core.start(w.plan, priority: w.priority, now: now, anchor: anchor)
            w.outcome?.finish(.success(()))
        } catch {
            logger.debug("vibration not started after its upload: \(error)")
            w.outcome?.finish(.failure(error))
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

    /// How long a waiting vibration that one device is ready for waits for
    /// the other devices' uploads: long enough for an upload on a slow
    /// driver (~100 ms under emulation), short of the upload wait limit, so
    /// that a device whose uploads hang delays the others only this much.
    static let otherDevicesGraceMs = 250

    /// Resolves the waiting vibration at `deadline` (monotonic ns) if nothing else does first.
    private func armWaitTimer(at deadline: UInt64) {
        let usec = (deadline + 999) / 1000
        if let timer = owned.waitTimer { return timer.schedule(at: usec) }
        do {
            owned.waitTimer = try host.loop.addTimer(at: usec, accuracy: .millisecond) { [weak self] _ in
                self?.resolveWaiting()
                self?.settle()
            }
        } catch {
            logger.error("haptic upload wait timer: \(error)")
        }
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
