import Logging
import SysoundCore

/// The engine's decisions, without threads or I/O of its own: which devices
/// are in use, which effects each holds and which it still needs uploaded,
/// what plays now, and when the next step is due. `HapticsEngine` drives it
/// on its event loop and runs the uploads on workers; tests drive it with a
/// hand-made clock and upload by hand.
///
/// The only device calls made here are the ones that do not block: the
/// EV_FF play and stop writes and the FF_GAIN write.
struct HapticsCore {
    struct ManagedDevice {
        let device: any ForceFeedbackDevice
        /// What its motor can play: which rendering of a score it gets.
        let motor: MotorAbility
        var slots: EffectSlots
        /// The slot playing now, if any.
        var playing: Int?
        /// Effects wanted on the device, not uploaded yet, in the order wanted.
        var queued: [RumbleEffect] = []
        /// Effects a worker is uploading now.
        var inFlight: [RumbleEffect] = []
        /// Upload jobs in a row that found the device not there (ENODEV):
        /// a node can appear a moment before its driver takes requests.
        var goneUploads = 0

        var isUploading: Bool { !queued.isEmpty || !inFlight.isEmpty }
    }

    struct Playback {
        var rendition: Rendition
        var start: UInt64
        var priority: Int
        /// Each device's plan and progress, by path.
        var tracks: [String: Track] = [:]
        /// How far the schedule has been carried out (`advance`).
        var elapsedMs = 0

        /// The device at `path`'s progress; one that joined since the last
        /// step picks it up at the first segment after that step.
        func track(for path: String, motor: MotorAbility) -> Track {
            if let track = tracks[path] { return track }
            let plan = rendition.plan(for: motor)
            return Track(plan: plan, next: plan.segments.firstIndex { $0.offsetMs > elapsedMs } ?? plan.segments.count)
        }
    }

    /// One device's part of a playback: its plan, rendered for its motor.
    struct Track {
        let plan: PatternPlan
        /// The next segment to begin.
        var next = 0

        /// When this device's next step is due (its next segment, else its
        /// plan's end), nil once its plan has ended by `elapsedMs`.
        func dueMs(after elapsedMs: Int) -> Int? {
            if next < plan.segments.count { return plan.segments[next].offsetMs }
            return elapsedMs >= plan.durationMs ? nil : plan.durationMs
        }
    }

    private(set) var devices: [String: ManagedDevice] = [:]
    private(set) var playback: Playback?
    private(set) var strengthCap: Double
    /// Devices dropped because an operation said they are gone. The node may
    /// still be there (a device can appear before its driver is ready), so
    /// the engine retries them until the node goes away.
    private(set) var lost: [String] = []
    /// Devices detached and not closed yet: closing can block (the kernel
    /// erases each effect, which a uinput driver must answer), so the engine
    /// closes them on a worker.
    private(set) var closing: [any ForceFeedbackDevice] = []
    /// Devices taken out of use because their driver refused our effect
    /// (EINVAL and the like): playing on them would only pretend.
    private(set) var refused: [(device: any ForceFeedbackDevice, error: DeviceError)] = []
    /// The device profile, which tells a motor's ability where the driver's name does not.
    let profile: HapticProfile?
    let logger: Logger

    init(strengthCap: Double, profile: HapticProfile? = nil, logger: Logger) {
        self.strengthCap = strengthCap
        self.profile = profile
        self.logger = logger
    }

    // MARK: Devices

    /// Takes `device` into use; sets its gain to the strength cap.
    mutating func attach(_ device: any ForceFeedbackDevice) {
        if let old = devices[device.path] { closing.append(old.device) }
        devices[device.path] = ManagedDevice(
            device: device, motor: MotorAbility.of(deviceName: device.capabilities.name, profile: profile),
            slots: EffectSlots(capacity: device.capabilities.effectSlots))
        applyGain(to: device.path)
        if devices[device.path] != nil {
            logger.info("haptic device added", metadata: ["path": "\(device.path)", "name": "\(device.capabilities.name)"])
        }
    }

    /// Forgets the device at `path`, e.g. after it was unplugged; it waits
    /// in `closing`.
    mutating func detach(path: String) {
        guard let managed = devices.removeValue(forKey: path) else { return }
        closing.append(managed.device)
        logger.info("haptic device removed", metadata: ["path": "\(path)"])
        if devices.isEmpty { playback = nil }
    }

    /// The lost paths since the last call.
    mutating func takeLost() -> [String] {
        defer { lost = [] }
        return lost
    }

    /// The devices refused since the last call.
    mutating func takeRefused() -> [(device: any ForceFeedbackDevice, error: DeviceError)] {
        defer { refused = [] }
        return refused
    }

    /// The devices to close since the last call.
    mutating func takeClosing() -> [any ForceFeedbackDevice] {
        defer { closing = [] }
        return closing
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

    // MARK: Effects and uploads

    /// The distinct effects `rendition` plays on the device at `path` (its
    /// plan for that device's motor), in order.
    func effects(of rendition: Rendition, on path: String) -> [RumbleEffect] {
        guard let managed = devices[path] else { return [] }
        var seen: Set<RumbleEffect> = []
        return rendition.plan(for: managed.motor).segments.compactMap { effect(for: $0, on: managed) }.filter { seen.insert($0).inserted }
    }

    /// Whether the device at `path` holds what `rendition` needs to start
    /// there: its first effect (the others are uploaded while it plays, and a
    /// step whose effect is not there in time is sat out).
    func isReady(_ rendition: Rendition, on path: String) -> Bool {
        guard let managed = devices[path] else { return false }
        // The first segment that vibrates, found without building the list (the request's path).
        for segment in rendition.plan(for: managed.motor).segments {
            if let effect = effect(for: segment, on: managed) { return managed.slots.contains(effect) }
        }
        return true
    }

    /// Asks for `effects` on the device at `path`, in the order they are
    /// needed, as many as it has slots: those uploaded are marked used now
    /// (so that making room spares them), the others queued for the next
    /// upload job unless they are on their way. A pattern longer than the
    /// slots asks for the rest as it plays (`upcoming`).
    ///
    /// What a request or a running pattern needs goes ahead of the presets
    /// preloaded on speculation (`ahead: false`): the user waits for it, and
    /// a slow driver (100 ms an upload) would otherwise make it wait out the
    /// whole theme.
    mutating func want(_ effects: [RumbleEffect], on path: String, ahead: Bool = true) {
        guard var managed = devices[path] else { return }
        var needed: [RumbleEffect] = []
        for effect in effects.prefix(managed.slots.capacity) where managed.slots.id(for: effect) == nil {
            if !managed.inFlight.contains(effect) && !needed.contains(effect) { needed.append(effect) }
        }
        if ahead {
            managed.queued.removeAll(where: needed.contains)
            managed.queued.insert(contentsOf: needed, at: 0)
        } else {
            managed.queued += needed.filter { !managed.queued.contains($0) }
        }
        devices[path] = managed
    }

    /// The next upload for the device at `path`, if one is due and none is
    /// running: the first queued effect, once the least recently used effect
    /// not playing and not needed by the running pattern is erased if need be.
    mutating func nextUpload(on path: String) -> UploadJob? {
        guard var managed = devices[path], managed.inFlight.isEmpty, !managed.queued.isEmpty else { return nil }
        var inUse: Set<Int> = managed.playing.map { [$0] } ?? []
        for effect in upcoming(on: path) { if let id = managed.slots.id(for: effect) { inUse.insert(id) } }
        // One effect per job: the first one a request waits for lands as
        // soon as the driver answers, not after the whole batch.
        let victims = managed.slots.makeRoom(for: 1, sparing: inUse)
        let batch = Array(managed.queued.prefix(min(managed.slots.free, 1)))
        guard !batch.isEmpty else { devices[path] = managed; return nil }  // all in use: wait for the next step
        managed.queued.removeFirst(batch.count)
        managed.inFlight = batch
        devices[path] = managed
        return UploadJob(device: managed.device, erase: victims, upload: batch)
    }

    /// Takes in what an upload job did on the device at `path`. When the
    /// device said it is not there, what was not uploaded is queued again
    /// for the engine to retry (`goneUploads` counts the tries).
    mutating func landed(_ result: UploadJob.Result, on path: String) {
        guard var managed = devices[path], managed.device === result.device else { return }
        let notTried = managed.inFlight.filter { effect in !result.uploads.contains { $0.0 == effect } }
        managed.inFlight = []
        if result.gone != nil {
            managed.goneUploads += 1
            managed.queued.insert(contentsOf: notTried, at: 0)
        } else {
            managed.goneUploads = 0
        }
        for (effect, outcome) in result.uploads {
            switch outcome {
            case .success(let id):
                managed.slots.insert(effect, id: id)
            case .failure(.noSpace):
                // Other handles hold slots: settle for ours and try again
                // after making room, unless we hold none to give up.
                guard managed.slots.count > 0 else {
                    logger.warning("haptic effect not uploaded: no free slot", metadata: ["path": "\(path)"])
                    continue
                }
                managed.slots.lowerCapacityToCount()
                managed.queued.insert(effect, at: 0)
            case .failure(let error) where error.refusesEffect:
                // The driver does not take this kind of effect at all (da7280
                // answers EINVAL to rumble): the device cannot play what we
                // have, so it leaves use, and the request learns why.
                logger.warning("haptic device refused an effect upload; not using it",
                               metadata: ["path": "\(path)", "name": "\(managed.device.capabilities.name)", "error": "\(error)"])
                devices[path] = managed
                refused.append((managed.device, error))
                detach(path: path)
                return
            case .failure(let error):
                logger.warning("haptic effect not uploaded", metadata: ["error": "\(error)"])
            }
        }
        devices[path] = managed
    }

    /// Gives up a device whose uploads keep saying it is not there: it is
    /// dropped as lost, and reopened while its node exists.
    mutating func dropAsLost(_ path: String) {
        guard devices[path] != nil else { return }
        logger.debug("haptic device gone during upload", metadata: ["path": "\(path)"])
        detach(path: path)
        lost.append(path)
    }

    /// The distinct effects the running pattern still has to play on `path`.
    func upcoming(on path: String) -> [RumbleEffect] {
        guard let p = playback, let managed = devices[path] else { return [] }
        let track = p.track(for: path, motor: managed.motor)
        var seen: Set<RumbleEffect> = []
        return track.plan.segments[track.next...].compactMap { effect(for: $0, on: managed) }.filter { seen.insert($0).inserted }
    }

    // MARK: Playing

    /// Throws `.outranked` when a pattern of higher priority plays.
    func checkPriority(_ priority: Int) throws(HapticsError) {
        if let running = playback, running.priority > priority {
            throw .outranked(running: running.priority, requested: priority)
        }
    }

    /// Starts `rendition`, its schedule anchored at `anchor` (`now` by
    /// default; earlier when it was asked for before, later to start then):
    /// each device plays its own plan (`Rendition.plan(for:)`) on the one
    /// clock. What is due by `now` plays on every device that holds its
    /// effect; later steps play as their effects are there. Until a later
    /// anchor, what played before goes on (its steps no longer advance).
    mutating func start(_ rendition: Rendition, priority: Int, now: UInt64, anchor: UInt64? = nil) throws(HapticsError) {
        guard !devices.isEmpty else { throw .noDevice }
        try checkPriority(priority)
        var p = Playback(rendition: rendition, start: anchor ?? now, priority: priority)
        for (path, managed) in devices { p.tracks[path] = Track(plan: rendition.plan(for: managed.motor)) }
        playback = p
        advance(now: now)
        if devices.isEmpty { throw .noDevice }  // every device vanished while starting
    }

    /// Stops whatever plays.
    mutating func stop() {
        playback = nil
        for path in devices.keys.sorted() { silence(path) }
    }

    var isPlaying: Bool { playback != nil }

    /// When `advance` must run next, on the monotonic clock, if anything
    /// plays: the earliest next segment or end among the devices' plans.
    var nextDeadline: UInt64? {
        guard let p = playback else { return nil }
        let due = devices.compactMap { path, managed in p.track(for: path, motor: managed.motor).dueMs(after: p.elapsedMs) }
        return p.start + UInt64(due.min() ?? p.rendition.durationMs) * 1_000_000
    }

    /// Carries out every step due by `now`, each device on its own plan.
    /// When late, only the latest due segment is played: a step that is
    /// already over is not worth a pulse. A device whose plan has ended is
    /// silenced; the playback ends when every device's has.
    mutating func advance(now: UInt64) {
        guard var p = playback, now >= p.start else { return }
        let elapsedMs = Int((now - p.start) / 1_000_000)
        var begins: [(path: String, segment: PatternPlan.Segment)] = []
        for (path, managed) in devices {
            var track = p.track(for: path, motor: managed.motor)
            var due = track.next
            while due < track.plan.segments.count && track.plan.segments[due].offsetMs <= elapsedMs { due += 1 }
            if due > track.next {
                begins.append((path, track.plan.segments[due - 1]))
                track.next = due
            }
            p.tracks[path] = track
        }
        p.elapsedMs = elapsedMs
        playback = p
        for (path, segment) in begins.sorted(by: { $0.path < $1.path }) { begin(segment, on: path) }
        let over = devices.keys.filter { p.tracks[$0]?.dueMs(after: elapsedMs) == nil }
        if over.count == devices.count {
            stop()
        } else {
            for path in over.sorted() { silence(path) }
        }
    }

    private mutating func begin(_ segment: PatternPlan.Segment, on path: String) {
        silence(path)
        guard let managed = devices[path], let effect = effect(for: segment, on: managed) else { return }
        let logger = logger
        guarded(path) { m throws(DeviceError) in
            // Not uploaded (yet): this device sits the step out rather than
            // wait for a driver; the pattern's clock does not move.
            guard let id = m.slots.id(for: effect) else {
                logger.debug("haptic step skipped: its effect is not uploaded", metadata: ["path": "\(path)"])
                return
            }
            try m.device.play(id: id, count: segment.count)
            m.playing = id
        }
    }

    /// The effect a segment plays on a device, nil for silence.
    private func effect(for segment: PatternPlan.Segment, on managed: ManagedDevice) -> RumbleEffect? {
        let caps = managed.device.capabilities
        let scale = caps.gain ? 1 : strengthCap
        let effect = RumbleEffect(
            magnitude: segment.magnitude * scale, lengthMs: segment.pulseMs, kind: caps.effectKind ?? .rumble,
            delayMs: segment.gapMs)
        return effect.strongMagnitude > 0 ? effect : nil
    }

    private mutating func silence(_ path: String) {
        guard let id = devices[path]?.playing else { return }
        guarded(path) { m throws(DeviceError) in
            m.playing = nil
            try m.device.stop(id: id)
        }
    }

    /// Runs a device operation; a device that is gone is dropped quietly,
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

/// Uploads (and the erases that make room for them) on one device, run on a
/// worker because EVIOCSFF and EVIOCRMFF can block: on a uinput device the
/// kernel waits up to 30 s for the process behind it.
struct UploadJob: Sendable {
    let device: any ForceFeedbackDevice
    let erase: [Int]
    let upload: [RumbleEffect]

    struct Result: Sendable {
        let device: any ForceFeedbackDevice
        var uploads: [(RumbleEffect, Swift.Result<Int, DeviceError>)] = []
        /// Set when the device went away; the rest was not tried.
        var gone: DeviceError?
    }

    /// Makes the calls (worker thread).
    func run() -> Result {
        var result = Result(device: device)
        do {
            for id in erase { try device.erase(id: id) }
        } catch .gone {
            result.gone = .gone(path: device.path)
            return result
        } catch {
            // The slot is ours no longer either way; the upload below says if room is short.
        }
        for effect in upload {
            do {
                result.uploads.append((effect, .success(try device.upload(effect, id: nil))))
            } catch .gone {
                result.gone = .gone(path: device.path)
                return result
            } catch {
                result.uploads.append((effect, .failure(error)))
            }
        }
        return result
    }
}
