import Logging
import SysoundCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A device the engine uses, as callers see it.
public struct HapticDeviceInfo: Sendable, Equatable {
    public var path: String
    public var name: String
    public var effectSlots: Int
    public var gain: Bool
}

/// Decides and schedules vibrations on the force-feedback devices it finds:
/// presets, patterns on the monotonic clock, priority replacement, intensity
/// and strength cap, hotplug. Devices only execute (`ForceFeedbackDevice`).
///
/// Thread-safe. One dedicated thread runs later pattern steps and the
/// hotplug watch. Where device calls run is `DeviceCalls`: the library plays
/// the first step on the caller's thread so a tap costs no thread hop; the
/// daemon, whose caller is its event loop, leaves every device call to the
/// engine thread, because a force-feedback upload can block for seconds
/// (on a uinput device the kernel waits for a userspace process). The
/// haptics switch is the caller's business (`Policy.decideVibration(state:)`).
public final class HapticsEngine: Sendable {
    /// Which thread makes the device calls (open, EVIOCSFF upload, play, stop).
    public enum DeviceCalls: Sendable {
        /// The first step of a request on the caller's thread (library, tools, tests).
        case firstStepOnCaller
        /// All on the engine thread: a request never waits for a device (daemon).
        case onEngineThread
    }

    /// What callers read without waiting for a device call: published by
    /// whoever changed the engine, after the change.
    private struct Snapshot {
        var running = false
        var devices: [HapticDeviceInfo] = []
        /// The priority of what plays, and when it ends (monotonic ns).
        var playing: (priority: Int, until: UInt64)?
    }

    /// A request handed to the engine thread (`.onEngineThread`).
    private enum Command {
        case start(HapticPattern, intensity: Double, priority: Int, at: UInt64)
        case stop
    }

    private struct State {
        var core: HapticsCore
        var running = false
        /// Nodes opened that do not qualify or are not pinned.
        var ignored: Set<String> = []
        /// Nodes that could not be opened yet (permissions not set, driver not
        /// ready), with the retries left; IN_ATTRIB or IN_CREATE try again anyway.
        var pending: [String: Int] = [:]
    }

    private struct Runtime {
        var thread: EngineThread
        var wakeRead: Int32
        var wakeWrite: Int32
    }

    private let state: Locked<State>
    private let presets: Locked<[String: HapticPattern]>
    private let snapshot = Locked(Snapshot())
    private let commands = Locked<[Command]>([])
    private let deviceCalls: DeviceCalls
    private let runtime = Locked<Runtime?>(nil)
    private let directory: String?
    private let pins: [DevicePin]
    private let opener: DeviceOpener
    private let logger: Logger

    /// - Parameters:
    ///   - presets: named patterns (`HapticPresets.defaults` merged with config).
    ///   - strengthCap: global strength, 0–1; carried by FF_GAIN where the device has it.
    ///   - deviceDirectory: where evdev nodes appear; nil for no discovery
    ///     (devices only through `attach`).
    ///   - pins: use only matching devices; empty means every qualifying one.
    ///   - opener: opens a node; tests pass one that makes fake devices.
    ///   - deviceCalls: which thread makes the device calls.
    public init(
        presets: [String: HapticPattern] = HapticPresets.defaults, strengthCap: Double = 1,
        deviceDirectory: String? = "/dev/input", pins: [DevicePin] = [],
        opener: @escaping DeviceOpener = EvdevDevice.opener, deviceCalls: DeviceCalls = .firstStepOnCaller,
        logger: Logger = Logger(label: "sysound.haptics")
    ) throws(HapticsError) {
        try HapticsError.checkLevel(strengthCap, name: "strength cap")
        for (_, pattern) in presets { try HapticsError.validate(pattern) }
        state = Locked(State(core: HapticsCore(strengthCap: strengthCap, logger: logger)))
        self.presets = Locked(presets)
        self.deviceCalls = deviceCalls
        directory = deviceDirectory
        self.pins = pins
        self.opener = opener
        self.logger = logger
    }

    deinit { shutdown() }

    // MARK: Life cycle

    /// Opens the devices present, starts watching for hotplug and starts the
    /// scheduler thread. Calling it again does nothing.
    public func start() throws(HapticsError) {
        let already = state.withLock { s in
            defer { s.running = true }
            return s.running
        }
        if already { return }
        snapshot.withLock { $0.running = true }
        var watcher: DirectoryWatcher?
        do throws(HapticsError) {
            if let directory { watcher = try DirectoryWatcher(directory: directory) }
        } catch {
            state.withLock { $0.running = false }
            snapshot.withLock { $0.running = false }
            throw error
        }
        for path in watcher?.scan() ?? [] { consider(path) }
        publish()
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            state.withLock { $0.running = false }
            throw .startFailed(call: "pipe", errno: errno)
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        let wakeRead = fds[0]
        let box = WatcherBox(watcher)
        guard let thread = EngineThread({ [self] in self.run(watcher: box.watcher, wake: wakeRead) }) else {
            close(fds[0]); close(fds[1])
            state.withLock { $0.running = false }
            throw .startFailed(call: "pthread_create", errno: errno)
        }
        runtime.withLock { $0 = Runtime(thread: thread, wakeRead: fds[0], wakeWrite: fds[1]) }
    }

    /// Stops vibrating, closes every device and ends the thread.
    public func shutdown() {
        state.withLock { s in
            s.running = false
            s.core.stop()
            for path in s.core.devices.keys { s.core.detach(path: path) }
        }
        snapshot.withLock { $0 = Snapshot() }
        guard let rt = runtime.withLock({ r in defer { r = nil }; return r }) else { return }
        var byte: UInt8 = 1
        _ = write(rt.wakeWrite, &byte, 1)
        rt.thread.join()
        close(rt.wakeRead)
        close(rt.wakeWrite)
    }

    // MARK: Requests

    /// Vibrates with the preset `name`, magnitudes × `intensity` (0–1).
    /// Replaces a running vibration of lower or equal `priority`.
    public func vibrate(preset name: String, intensity: Double = 1, priority: Int = 0) throws(HapticsError) {
        let pattern: HapticPattern? = presets.withLock { $0[name] }
        guard let pattern else {
            throw .unknownPreset(name, known: presetNames)
        }
        try vibrate(pattern: pattern, intensity: intensity, priority: priority)
    }

    /// Vibrates with `pattern`, magnitudes × `intensity` (0–1). Replaces a
    /// running vibration of lower or equal `priority`; throws `.outranked`
    /// otherwise, `.noDevice` when there is nothing to vibrate.
    public func vibrate(pattern: HapticPattern, intensity: Double = 1, priority: Int = 0) throws(HapticsError) {
        try HapticsError.validate(pattern)
        try HapticsError.checkLevel(intensity, name: "intensity")
        let now = MonotonicClock.now()
        if deviceCalls == .onEngineThread {
            // Decided from the snapshot, carried out by the engine thread:
            // the caller never waits for a device call.
            try snapshot.withLock { s throws(HapticsError) in
                guard s.running else { throw .notRunning }
                guard !s.devices.isEmpty else { throw .noDevice }
                if let playing = s.playing, playing.until > now, playing.priority > priority {
                    throw .outranked(running: playing.priority, requested: priority)
                }
                s.playing = (priority, now + UInt64(pattern.durationMs) * 1_000_000)
            }
            commands.withLock { $0.append(.start(pattern, intensity: intensity, priority: priority, at: now)) }
            return wake()
        }
        try state.withLock { s throws(HapticsError) in
            guard s.running else { throw .notRunning }
            try s.core.start(pattern, intensity: intensity, priority: priority, now: now)
        }
        publish()
        wake()
    }

    /// Ends the running vibration, if any.
    public func stop() {
        if deviceCalls == .onEngineThread {
            snapshot.withLock { $0.playing = nil }
            commands.withLock { $0.append(.stop) }
            return wake()
        }
        state.withLock { $0.core.stop() }
        publish()
        wake()
    }

    /// Whether a pattern is running now.
    public var isVibrating: Bool {
        snapshot.withLock { s in s.playing.map { $0.until > MonotonicClock.now() } ?? false }
    }

    /// The devices in use, by path.
    public var devices: [HapticDeviceInfo] { snapshot.withLock { $0.devices } }

    /// The preset names, sorted.
    public var presetNames: [String] { presets.withLock { $0.keys.sorted() } }

    /// Replaces the presets (config reload).
    public func setPresets(_ presets: [String: HapticPattern]) throws(HapticsError) {
        for (_, pattern) in presets { try HapticsError.validate(pattern) }
        self.presets.withLock { $0 = presets }
    }

    /// Publishes what callers read (devices, what plays) after a change.
    private func publish() {
        let (devices, playing) = state.withLock { s in
            let devices = s.core.devices.values.map {
                let c = $0.device.capabilities
                return HapticDeviceInfo(path: $0.device.path, name: c.name, effectSlots: c.effectSlots, gain: c.gain)
            }.sorted { $0.path < $1.path }
            let playing = s.core.playback.map { (priority: $0.priority, until: $0.start + UInt64($0.plan.durationMs) * 1_000_000) }
            return (devices, playing)
        }
        snapshot.withLock { s in
            s.devices = devices
            // A request handed to the engine thread and not yet started stays shown as playing.
            if deviceCalls == .firstStepOnCaller || commands.withLock({ $0.isEmpty }) { s.playing = playing }
        }
    }

    /// Carries out the requests handed over by `vibrate` and `stop` (engine thread).
    private func runCommands() {
        let pending = commands.withLock { c in defer { c = [] }; return c }
        guard !pending.isEmpty else { return }
        state.withLock { s in
            for command in pending {
                switch command {
                case .start(let pattern, let intensity, let priority, let at):
                    do {
                        try s.core.start(pattern, intensity: intensity, priority: priority, now: max(at, MonotonicClock.now()))
                    } catch {
                        logger.debug("vibration not started: \(error)")
                    }
                case .stop:
                    s.core.stop()
                }
            }
        }
    }

    /// Changes the global strength cap (0–1); devices with FF_GAIN get it now.
    public func setStrengthCap(_ cap: Double) throws(HapticsError) {
        try HapticsError.checkLevel(cap, name: "strength cap")
        state.withLock { $0.core.setStrengthCap(cap) }
    }

    public var strengthCap: Double { state.withLock { $0.core.strengthCap } }

    /// Takes a device into use directly (no discovery), if it qualifies and
    /// matches the pins. Returns whether it was taken.
    @discardableResult
    public func attach(_ device: any ForceFeedbackDevice) -> Bool {
        guard qualifies(device) else { return false }
        state.withLock { $0.core.attach(device) }
        publish()
        return true
    }

    /// Closes and forgets the device at `path`.
    public func detach(path: String) {
        state.withLock { $0.core.detach(path: path) }
        publish()
    }

    // MARK: Discovery

    private func qualifies(_ device: any ForceFeedbackDevice) -> Bool {
        device.capabilities.qualifies
            && (pins.isEmpty || pins.contains { $0.matches(path: device.path, name: device.capabilities.name) })
    }

    /// Opens `path` unless it is known, and keeps it if it qualifies.
    private func consider(_ path: String) {
        let known = state.withLock { $0.core.devices[path] != nil || $0.ignored.contains(path) }
        if known { return }
        let device: any ForceFeedbackDevice
        do {
            device = try opener(path)
        } catch .permissionDenied, .gone {
            // Not ready yet: udev sets permissions after the node appears.
            state.withLock { s in s.pending[path] = (s.pending[path] ?? Self.retries + 1) - 1 }
            return
        } catch {
            logger.debug("cannot open input device", metadata: ["error": "\(error)"])
            state.withLock { _ = $0.ignored.insert(path) }
            return
        }
        let taken = qualifies(device)
        if !taken { device.close() }
        state.withLock { s in
            s.pending[path] = nil
            if taken { s.core.attach(device) } else { s.ignored.insert(path) }
        }
    }

    private func forget(_ path: String) {
        state.withLock { s in
            s.core.detach(path: path)
            s.ignored.remove(path)
            s.pending[path] = nil
        }
    }

    private func wake() {
        runtime.withLock { rt in
            guard let rt else { return }
            var byte: UInt8 = 1
            _ = write(rt.wakeWrite, &byte, 1)
        }
    }

    // MARK: The engine thread

    private func run(watcher: DirectoryWatcher?, wake: Int32) {
        var lastRetry = MonotonicClock.now()
        while true {
            runCommands()
            let (deadline, pending) = state.withLock { s in
                for path in s.core.takeLost() where s.pending[path] == nil { s.pending[path] = Self.retries }
                return (s.core.nextDeadline, !s.pending.isEmpty)
            }
            var timeout = Self.pollTimeout(until: deadline)
            if pending { timeout = timeout < 0 ? Self.retryMs : min(timeout, Self.retryMs) }
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: watcher?.fd ?? -1, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, timeout)
            if fds[0].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while read(wake, &sink, sink.count) > 0 {}
                if !state.withLock({ $0.running }) { return }
            }
            if fds[1].revents != 0, let watcher {
                for change in watcher.changes() {
                    switch change {
                    case .candidate(let path): consider(path)
                    case .removed(let path): forget(path)
                    case .rescan: for path in watcher.scan() { consider(path) }
                    }
                }
            }
            if pending && MonotonicClock.now() - lastRetry >= UInt64(Self.retryMs) * 1_000_000 {
                lastRetry = MonotonicClock.now()
                let due = state.withLock { s in
                    s.pending = s.pending.filter { $0.value > 0 }
                    return s.pending.keys.sorted()
                }
                for path in due {
                    if access(path, F_OK) == 0 { consider(path) } else { forget(path) }
                }
            }
            runCommands()
            state.withLock { $0.core.advance(now: MonotonicClock.now()) }
            publish()
        }
    }

    /// How often, and how many times, nodes that could not be opened are
    /// tried again (5 s in all: long enough for udev and slow drivers).
    private static let retryMs: Int32 = 250
    private static let retries = 20

    /// poll(2) has millisecond resolution: sleep in poll until about 1 ms
    /// before the deadline, then precisely with clock_nanosleep.
    private static func pollTimeout(until deadline: UInt64?) -> Int32 {
        guard let deadline else { return -1 }
        let now = MonotonicClock.now()
        guard deadline > now else { return 0 }
        let remaining = deadline - now
        if remaining <= 1_500_000 {
            MonotonicClock.sleep(until: deadline)
            return 0
        }
        return Int32(min((remaining - 1_000_000) / 1_000_000, 60_000))
    }
}

/// Hands the watcher to the engine thread, its only user from then on.
private final class WatcherBox: @unchecked Sendable {
    let watcher: DirectoryWatcher?
    init(_ watcher: DirectoryWatcher?) { self.watcher = watcher }
}
