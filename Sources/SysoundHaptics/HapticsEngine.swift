import Logging
import SysoundCore
import SysoundPlatform
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A device the engine uses, as callers see it.
package struct HapticDeviceInfo: Sendable, Equatable {
    package var path: String
    package var name: String
    package var effectSlots: Int
    package var gain: Bool
    /// The effect kind played on it.
    package var effect: EffectKind = .rumble
}

/// Decides and schedules vibrations on the force-feedback devices it finds:
/// presets, patterns on the monotonic clock, scores rendered for each
/// device's motor (`Rendition`), priority replacement, intensity and
/// strength cap, hotplug. Devices only execute (`ForceFeedbackDevice`).
///
/// Runs on a `LoopHost`: the daemon's event loop, or a loop of its own for
/// embedded users. Its state belongs to that loop; a call from another
/// thread is carried out there (`EventLoop.perform`). On the loop run the
/// pattern steps (a CLOCK_MONOTONIC timer source), the device directory's
/// inotify watch and the calls that do not block: the EV_FF play and stop
/// writes and FF_GAIN. Opening a node, uploading and erasing effects
/// (EVIOCSFF, EVIOCRMFF: on a uinput device the kernel waits up to 30 s for
/// its process) and closing go to the workers; their results come back to
/// the loop. No lock is held across a device call.
///
/// The effects of the presets in use (`setPresets(_:preload:)`) are uploaded
/// as soon as a device appears, so a paired haptic never waits for a driver.
/// The haptics switch is the caller's business (`Policy.decideVibration(state:)`).
package final class HapticsEngine: Sendable {
    /// What a request does when its effects are not on any device yet
    /// (the device just appeared, or its driver answers uploads late).
    package enum WhenNotUploaded: Sendable {
        /// Throw `.notUploaded` at once and upload for the next request: a
        /// haptic paired with a sound must start with it or not at all.
        case skip
        /// Start once the upload is done, unless that takes longer than
        /// `uploadWaitLimitMs` (a request for a vibration alone).
        case startWhenUploaded
    }

    /// How long a vibration waits for its upload before it is dropped: past
    /// this it no longer reads as the answer to what the user did.
    package static let uploadWaitLimitMs = 500

    /// What callers read without a trip to the loop, published after each change.
    struct Snapshot {
        var running = false
        var devices: [HapticDeviceInfo] = []
        /// The priority of what plays (or waits for its upload), and when it ends (monotonic ns).
        var playing: (priority: Int, until: UInt64)?
        var strengthCap: Double
        var uploading = false
        /// Every force-feedback device found, by path.
        var report: [HapticDeviceStatus] = []
        /// Why there is no device to play on when one refused our effects.
        var refusal: HapticsError?
        /// Nodes are being opened: a request off the loop waits for them.
        var opening = false
    }

    /// A vibration waiting for its effects to be uploaded.
    struct Waiting {
        var rendition: Rendition
        var priority: Int
        var requested: UInt64
        /// How long after `requested` its first step is due (a haptic paired with sound: the output's latency).
        var delay: UInt64
        /// Told whether it started, for a caller that waits to answer truthfully.
        var outcome: WaitOutcome?
    }

    /// How a waiting vibration ended, set once on the loop, read by its
    /// caller (or handed to `then`, on the loop).
    final class WaitOutcome: Sendable {
        let result = Locked<Result<Void, HapticsError>?>(nil)
        let then: (@Sendable (Result<Void, HapticsError>) -> Void)?
        init(then: (@Sendable (Result<Void, HapticsError>) -> Void)? = nil) { self.then = then }
        func finish(_ r: Result<Void, HapticsError>) {
            let first = result.withLock { if $0 == nil { $0 = r; return true } else { return false } }
            if first { then?(r) }
        }
    }

    /// The engine's state, used on the loop thread only.
    final class Owned: @unchecked Sendable {
        var core: HapticsCore
        var running = false
        /// Nodes opened that do not qualify or are not pinned.
        var ignored: Set<String> = []
        /// Nodes that could not be opened yet (permissions not set, driver not
        /// ready), with the retries left; IN_ATTRIB or IN_CREATE try again anyway.
        var pending: [String: Int] = [:]
        /// Nodes a worker is opening.
        var opening: Set<String> = []
        /// The presets whose effects go to every device as it appears.
        var preload: [String] = []
        var waiting: Waiting?
        var watcher: DirectoryWatcher?
        var stepTimer: EventSource?
        var retryTimer: EventSource?
        var waitTimer: EventSource?
        var uploadRetryTimers: [String: EventSource] = [:]
        /// Cues of a score's timeline still to come (`cue(afterMs:_:)`), by number.
        var cues: [Int: EventSource] = [:]
        var nextCue = 0
        /// The device paths last published to the snapshot.
        var publishedPaths: Set<String> = []
        /// Every force-feedback device found, used or not, by path.
        var report: [String: HapticDeviceStatus] = [:]
        var reportChanged = false
        /// The last refusal that took a device out of use.
        var refusal: HapticsError?

        init(core: HapticsCore) { self.core = core }

        /// Ends the sources (loop thread).
        func cancelSources() {
            watcher?.cancel()
            watcher = nil
            stepTimer?.cancel()
            stepTimer = nil
            retryTimer?.cancel()
            retryTimer = nil
            waitTimer?.cancel()
            waitTimer = nil
            for timer in uploadRetryTimers.values { timer.cancel() }
            uploadRetryTimers = [:]
            for cue in cues.values { cue.cancel() }
            cues = [:]
        }
    }

    let host: LoopHost
    let owned: Owned
    /// Step patterns, and scores rendered for each device as it plays them.
    let presets: Locked<[String: HapticSource]>
    let snapshot: Locked<Snapshot>
    let directory: String?
    let choice: DeviceChoice
    /// The device profile tuning presets and pulses to the motor, if one applies.
    package let profile: ProfileChoice?
    let opener: DeviceOpener
    let logger: Logger

    /// - Parameters:
    ///   - presets: named patterns (`HapticPresets.defaults` merged with config).
    ///   - strengthCap: global strength, 0–1; carried by FF_GAIN where the device has it.
    ///   - deviceDirectory: where evdev nodes appear; nil for no discovery
    ///     (devices only through `attach`).
    ///   - pins: use only matching devices (`DeviceChoice.chosen`); empty: `choice`.
    ///   - choice: which devices vibrate; built-in vibrators by default.
    ///   - profile: the device profile: its minimum pulse lengthens short
    ///     steps, its presets replace those left at their built-in values.
    ///   - opener: opens a node; tests pass one that makes fake devices.
    ///   - host: the loop and workers the engine runs on.
    package init(
        presets: [String: HapticPattern] = HapticPresets.defaults, strengthCap: Double = 1,
        deviceDirectory: String? = "/dev/input", pins: [DevicePin] = [], choice: DeviceChoice = .builtIn,
        profile: ProfileChoice? = nil, opener: @escaping DeviceOpener = EvdevDevice.opener, host: LoopHost,
        logger: Logger = Logger(label: "sysound.haptics")
    ) throws(HapticsError) {
        try HapticsError.checkLevel(strengthCap, name: "strength cap")
        for (_, pattern) in presets { try HapticsError.validate(pattern) }
        let presets = Self.tuned(presets, for: profile)
        owned = Owned(core: HapticsCore(strengthCap: strengthCap, profile: profile?.profile, logger: logger))
        snapshot = Locked(Snapshot(strengthCap: strengthCap))
        self.presets = Locked(presets)
        self.host = host
        directory = deviceDirectory
        self.choice = pins.isEmpty ? choice : .chosen(pins)
        self.profile = profile
        self.opener = opener
        self.logger = logger
    }

    deinit {
        // The sources belong to the loop: end them there.
        let owned = owned
        host.loop.perform { owned.cancelSources() }
    }

    // MARK: Life cycle

    /// Starts watching for devices and opens those present (on the workers:
    /// `devices` lists them once they are open). Calling it again does nothing.
    package func start() throws(HapticsError) {
        try onLoop { [self] () throws(HapticsError) in try startOnLoop() }
    }

    /// Stops vibrating, closes every device and ends the watch.
    package func shutdown() {
        host.loop.perform { [self] in
            let o = owned
            o.running = false
            o.waiting?.outcome?.finish(.failure(.notRunning))
            o.waiting = nil
            o.core.stop()
            for path in o.core.devices.keys { o.core.detach(path: path) }
            o.pending = [:]
            o.cancelSources()
            settle()
        }
    }

    /// Ends the running vibration, if any, and forgets one waiting for its upload.
    package func stop() {
        host.loop.perform { [self] in
            owned.waiting?.outcome?.finish(.failure(.notUploaded))
            owned.waiting = nil
            owned.core.stop()
            armStepTimer()
            settle()
        }
    }

    /// Whether a pattern is running now (or waits for its upload).
    package var isVibrating: Bool {
        snapshot.withLock { s in s.playing.map { $0.until > MonotonicClock.now() } ?? false }
    }

    /// Whether effects are on their way to a device (or wait to be).
    package var isUploading: Bool { snapshot.withLock { $0.uploading } }

    /// The devices in use, by path.
    package var devices: [HapticDeviceInfo] { snapshot.withLock { $0.devices } }

    /// Every force-feedback device found, used or not and why, by path.
    package var deviceReport: [HapticDeviceStatus] { snapshot.withLock { $0.report } }

    /// Which devices vibrate (`[haptics] devices`).
    package var deviceChoice: DeviceChoice { choice }

    /// The preset names, sorted.
    package var presetNames: [String] { presets.withLock { $0.keys.sorted() } }

    /// `presets` for this machine: the profile's presets where the
    /// configuration kept the built-in ones, and Android's moments still at
    /// their built-in values as the scores they are composed as, rendered
    /// for each device as it plays them.
    static func tuned(_ presets: [String: HapticPattern], for profile: ProfileChoice?) -> [String: HapticSource] {
        let patterns = profile?.profile.presets(over: presets) ?? presets
        return patterns.mapValues(HapticSource.pattern).merging(HapticPresets.composed(patterns).mapValues(HapticSource.score)) { _, score in score }
    }

    /// Adds presets described as scores (a theme's AHAP haptics, by the name
    /// the theme gives them), rendered for each device as it plays them.
    package func define(scores: [String: HapticScore]) {
        guard !scores.isEmpty else { return }
        presets.withLock { $0.merge(scores.mapValues(HapticSource.score)) { _, new in new } }
    }

    /// Replaces the presets (config reload).
    package func setPresets(_ presets: [String: HapticPattern]) throws(HapticsError) {
        for (_, pattern) in presets { try HapticsError.validate(pattern) }
        let presets = Self.tuned(presets, for: profile)
        self.presets.withLock { $0 = presets }
        host.loop.perform { [self] in
            preloadEverywhere()
            settle()
        }
    }

    /// Names the presets in use (the theme's and the policy's): their effects
    /// are uploaded to every device now and as soon as one appears, so that
    /// their first play is a write, not an upload.
    package func preload(presets names: [String]) {
        host.loop.perform { [self] in
            owned.preload = names
            preloadEverywhere()
            settle()
        }
    }

    /// Changes the global strength cap (0–1); devices with FF_GAIN get it now,
    /// the others get the preset effects at the new strength uploaded.
    package func setStrengthCap(_ cap: Double) throws(HapticsError) {
        try HapticsError.checkLevel(cap, name: "strength cap")
        host.loop.perform { [self] in
            owned.core.setStrengthCap(cap)
            preloadEverywhere()
            settle()
        }
    }

    package var strengthCap: Double { snapshot.withLock { $0.strengthCap } }

    /// Takes a device into use directly (no discovery), if it qualifies and
    /// is chosen (`DeviceChoice`). Returns whether it was taken.
    @discardableResult
    package func attach(_ device: any ForceFeedbackDevice) -> Bool {
        let verdict = verdict(for: device)
        host.loop.perform { [self] in
            record(device, verdict)
            settle()
        }
        guard verdict.used else { return false }
        host.loop.perform { [self] in
            owned.core.attach(device)
            if owned.running { preload(on: device.path) }
            settle()
        }
        return true
    }

    /// Closes and forgets the device at `path`.
    package func detach(path: String) {
        host.loop.perform { [self] in
            forget(path)
            settle()
        }
    }

    // MARK: On the loop

    /// Runs `body` on the loop and rethrows its error here.
    func onLoop(_ body: @escaping @Sendable () throws(HapticsError) -> Void) throws(HapticsError) {
        let result: Result<Void, HapticsError> = host.loop.perform {
            do throws(HapticsError) { return .success(try body()) } catch { return .failure(error) }
        }
        try result.get()
    }

    private func startOnLoop() throws(HapticsError) {
        let o = owned
        guard !o.running else { return }
        if let directory {
            o.watcher = try DirectoryWatcher(directory: directory, loop: host.loop) { [weak self] change in
                self?.changed(change)
            }
        }
        o.running = true
        for path in o.core.devices.keys.sorted() { preload(on: path) }
        for path in o.watcher?.scan() ?? [] { consider(path) }
        settle()
    }

    /// After any change: retries for lost devices, closes on the workers,
    /// and publishes what callers read.
    func settle() {
        let o = owned
        for (device, error) in o.core.takeRefused() {
            let reason = "uploads refused: \(Self.plainReason(error))"
            o.report[device.path] = HapticDeviceStatus(
                path: device.path, name: device.capabilities.name, used: false, reason: reason, effect: device.capabilities.effectKind,
                motor: MotorAbility.of(deviceName: device.capabilities.name, profile: profile?.profile))
            o.reportChanged = true
            o.ignored.insert(device.path)
            o.refusal = .refused(device: device.capabilities.name, path: device.path, reason: Self.plainReason(error))
        }
        for path in o.core.takeLost() where o.pending[path] == nil { o.pending[path] = Self.retries }
        for device in o.core.takeClosing() { host.workers.submit { device.close() } }
        armRetryTimer()
        publish()
    }

    private func publish() {
        let o = owned
        // Rebuilt only when the set of devices changed: a request's settle stays cheap.
        let paths = o.core.devices.count == o.publishedPaths.count && o.core.devices.keys.allSatisfy(o.publishedPaths.contains)
        var devices: [HapticDeviceInfo]?
        if !paths {
            o.publishedPaths = Set(o.core.devices.keys)
            devices = o.core.devices.values.map {
                let c = $0.device.capabilities
                return HapticDeviceInfo(
                    path: $0.device.path, name: c.name, effectSlots: c.effectSlots, gain: c.gain, effect: c.effectKind ?? .rumble)
            }.sorted { $0.path < $1.path }
        }
        var playing = o.core.playback.map { (priority: $0.priority, until: $0.start + UInt64($0.rendition.durationMs) * 1_000_000) }
        if let w = o.waiting {
            playing = (w.priority, w.requested + UInt64(Self.uploadWaitLimitMs + w.rendition.durationMs) * 1_000_000)
        }
        let running = o.running, cap = o.core.strengthCap
        let uploading = o.core.devices.values.contains(where: \.isUploading)
        let report = o.reportChanged ? o.report.values.sorted { $0.path < $1.path } : nil
        o.reportChanged = false
        let refusal = o.core.devices.isEmpty ? o.refusal : nil, opening = !o.opening.isEmpty
        snapshot.withLock { s in
            if let report { s.report = report }
            s.refusal = refusal
            s.opening = opening
            s.uploading = uploading
            s.running = running
            if let devices { s.devices = devices }
            s.playing = playing
            s.strengthCap = cap
        }
    }

    /// How often, and how many times, nodes that could not be opened are
    /// tried again (5 s in all: long enough for udev and slow drivers).
    static let retryInterval: UInt64 = 250_000
    static let retries = 20
    /// Upload retries on a device that said ENODEV, 20 ms apart (µs).
    static let goneUploadDelay: UInt64 = 20_000
    static let goneUploadRetries = 25
}
