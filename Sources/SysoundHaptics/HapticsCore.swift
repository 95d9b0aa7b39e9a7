import Logging
import SysoundCore

/// A pattern prepared for playing: runs of equal magnitude merged, offsets
/// from the pattern's start, intensity applied.
struct PatternPlan: Equatable {
    struct Segment: Equatable {
        var offsetMs: Int
        var durationMs: Int
        var magnitude: Double
    }

    var segments: [Segment]
    var durationMs: Int

    init(_ pattern: HapticPattern, intensity: Double) {
        var segments: [Segment] = []
        var offset = 0
        for step in pattern.steps {
            let m = step.magnitude * intensity
            if var last = segments.last, last.magnitude == m {
                last.durationMs += step.durationMs
                segments[segments.count - 1] = last
            } else {
                segments.append(Segment(offsetMs: offset, durationMs: step.durationMs, magnitude: m))
            }
            offset += step.durationMs
        }
        self.segments = segments
        self.durationMs = offset
    }
}

/// The engine's decisions, without threads or I/O of its own: which devices
/// are in use, what plays now, and when the next step is due. `HapticsEngine`
/// drives it under its lock; tests drive it with a hand-made clock.
struct HapticsCore {
    struct ManagedDevice {
        let device: any ForceFeedbackDevice
        var slots: EffectSlots
        /// The slot playing now, if any.
        var playing: Int?
    }

    struct Playback {
        var plan: PatternPlan
        var start: UInt64
        var priority: Int
        /// The next segment to begin.
        var next = 0
    }

    private(set) var devices: [String: ManagedDevice] = [:]
    private(set) var playback: Playback?
    private(set) var strengthCap: Double
    /// Devices dropped because an operation said they are gone. The node may
    /// still be there (a device can appear before its driver is ready), so
    /// the engine retries them until the node goes away.
    private(set) var lost: [String] = []
    let logger: Logger

    init(strengthCap: Double, logger: Logger) {
        self.strengthCap = strengthCap
        self.logger = logger
    }

    // MARK: Devices

    /// Takes `device` into use; sets its gain to the strength cap.
    mutating func attach(_ device: any ForceFeedbackDevice) {
        if let old = devices[device.path] { old.device.close() }
        devices[device.path] = ManagedDevice(device: device, slots: EffectSlots(capacity: device.capabilities.effectSlots))
        applyGain(to: device.path)
        if devices[device.path] != nil {
            logger.info("haptic device added", metadata: ["path": "\(device.path)", "name": "\(device.capabilities.name)"])
        }
    }

    /// Closes and forgets the device at `path`, e.g. after it was unplugged.
    mutating func detach(path: String) {
        guard let managed = devices.removeValue(forKey: path) else { return }
        managed.device.close()
        logger.info("haptic device removed", metadata: ["path": "\(path)"])
        if devices.isEmpty { playback = nil }
    }

    /// The lost paths since the last call.
    mutating func takeLost() -> [String] {
        defer { lost = [] }
        return lost
    }

    mutating func setStrengthCap(_ cap: Double) {
        strengthCap = cap
        for path in devices.keys.sorted() { applyGain(to: path) }
    }

    /// Devices with FF_GAIN carry the cap as their gain; others get it in
    /// each effect's magnitude.
    private mutating func applyGain(to path: String) {
        guard let managed = devices[path], managed.device.capabilities.gain else { return }
        let gain = UInt16((strengthCap * Double(UInt16.max)).rounded())
        guarded(path) { m throws(DeviceError) in try m.device.setGain(gain) }
    }

    // MARK: Playing

    /// Starts `pattern` now, replacing a running one of lower or equal priority.
    mutating func start(_ pattern: HapticPattern, intensity: Double, priority: Int, now: UInt64) throws(HapticsError) {
        guard !devices.isEmpty else { throw .noDevice }
        if let running = playback, running.priority > priority {
            throw .outranked(running: running.priority, requested: priority)
        }
        let plan = PatternPlan(pattern, intensity: intensity)
        playback = Playback(plan: plan, start: now, priority: priority)
        advance(now: now)
        for path in devices.keys.sorted() { prepare(plan, on: path) }
        if devices.isEmpty { throw .noDevice }  // every device vanished while starting
    }

    /// Stops whatever plays.
    mutating func stop() {
        playback = nil
        for path in devices.keys.sorted() { silence(path) }
    }

    var isPlaying: Bool { playback != nil }

    /// When `advance` must run next, on the monotonic clock, if anything plays.
    var nextDeadline: UInt64? {
        guard let p = playback else { return nil }
        let ms = p.next < p.plan.segments.count ? p.plan.segments[p.next].offsetMs : p.plan.durationMs
        return p.start + UInt64(ms) * 1_000_000
    }

    /// Carries out every step due by `now`. When late, only the latest due
    /// segment is played: a step that is already over is not worth a pulse.
    mutating func advance(now: UInt64) {
        guard var p = playback else { return }
        let elapsedMs = now >= p.start ? Int((now - p.start) / 1_000_000) : 0
        var due = p.next
        while due < p.plan.segments.count && p.plan.segments[due].offsetMs <= elapsedMs { due += 1 }
        if due > p.next {
            let segment = p.plan.segments[due - 1]
            p.next = due
            playback = p
            for path in devices.keys.sorted() { begin(segment, on: path) }
        }
        if p.next == p.plan.segments.count && elapsedMs >= p.plan.durationMs {
            stop()
        }
    }

    private mutating func begin(_ segment: PatternPlan.Segment, on path: String) {
        silence(path)
        guard let managed = devices[path], let effect = effect(for: segment, on: managed) else { return }
        guarded(path) { m throws(DeviceError) in
            let id = try m.slots.slot(for: effect, on: m.device)
            try m.device.play(id: id)
            m.playing = id
        }
    }

    /// The effect a segment plays on a device, nil for silence.
    private func effect(for segment: PatternPlan.Segment, on managed: ManagedDevice) -> RumbleEffect? {
        let scale = managed.device.capabilities.gain ? 1 : strengthCap
        let effect = RumbleEffect(magnitude: segment.magnitude * scale, lengthMs: segment.durationMs)
        return effect.strongMagnitude > 0 ? effect : nil
    }

    /// Uploads the pattern's later effects while its first step plays, as far
    /// as the slots allow, so a step boundary costs only a write, not an
    /// upload round trip to the driver.
    private mutating func prepare(_ plan: PatternPlan, on path: String) {
        guard let managed = devices[path] else { return }
        var reserved: Set<Int> = managed.playing.map { [$0] } ?? []
        for segment in plan.segments.dropFirst() {
            guard reserved.count < managed.slots.capacity else { break }
            guard let effect = effect(for: segment, on: managed) else { continue }
            guarded(path) { m throws(DeviceError) in
                reserved.insert(try m.slots.slot(for: effect, on: m.device, inUse: reserved))
            }
        }
    }

    private mutating func silence(_ path: String) {
        guard let id = devices[path]?.playing else { return }
        guarded(path) { m throws(DeviceError) in
            m.playing = nil
            try m.device.stop(id: id)
        }
    }

    /// Runs a device operation; a device that is gone is closed quietly,
    /// other failures are logged and the device stays.
    private mutating func guarded(_ path: String, _ body: (inout ManagedDevice) throws(DeviceError) -> Void) {
        guard var managed = devices[path] else { return }
        do {
            try body(&managed)
            devices[path] = managed
        } catch .gone {
            devices[path] = managed
            detach(path: path)
            lost.append(path)
        } catch {
            devices[path] = managed
            logger.warning("haptic device operation failed", metadata: ["error": "\(error)"])
        }
    }
}
