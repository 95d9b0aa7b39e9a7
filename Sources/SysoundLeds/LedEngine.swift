import Logging
import SysoundCore
import SysoundPlatform
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The LED device layer (feedbackd style: the manager decides, the lights
/// execute). It finds the lights (`LedDiscovery`), follows udev's database
/// for LEDs that come and go, and shows on each light the request the
/// `LedArbiter` picks, through the kernel's pattern trigger: a write of
/// `pattern` and `repeat` per change, no timer of the daemon's while a light
/// blinks. A bounded burst (the flash for alerts) ends by itself in the
/// kernel; one timer then lets the next request show.
///
/// Runs on a `LoopHost`'s loop, as the haptics engine does: its state belongs
/// to the loop, and a call from another thread is carried out there.
package final class LedEngine: Sendable {
    private let host: LoopHost
    private let discovery: LedDiscovery
    private let logger: Logger
    private let owned: Owned
    /// What callers read without a trip to the loop, published after each change.
    private let snapshot = Locked<[LightReport]>([])

    /// One light as `status` shows it.
    package struct LightReport: Sendable, Equatable {
        package var light: LedLight?
        /// Set for an LED that is not used.
        package var skipped: SkippedLed?
        /// What it shows now ("off" when nothing holds it).
        package var shows: String
        /// The last write the kernel refused, if any.
        package var problem: String?
    }

    struct Applied: Equatable {
        var id: UInt64?
        /// A burst, which ends by itself in the kernel.
        var bounded: Bool
    }

    private final class Owned: @unchecked Sendable {
        var lights: [LedLight] = []
        var skipped: [SkippedLed] = []
        var requests: [UInt64: LedRequest] = [:]
        var order: [UInt64] = []
        var nextID: UInt64 = 1
        /// The request shown on each light (nil id: off), by light name.
        var applied: [String: Applied] = [:]
        var problems: [String: String] = [:]
        var preferFlash = false
        var watch: EventSource?
        var timers: [UInt64: EventSource] = [:]
        /// LED names already reported as lacking the pattern trigger (one log line each).
        var reportedMissing: Set<String> = []

        func cancelSources() {
            watch?.cancel()
            watch = nil
            for timer in timers.values { timer.cancel() }
            timers = [:]
        }
    }

    package init(discovery: LedDiscovery = LedDiscovery(), host: LoopHost, logger: Logger = Logger(label: "sysound.leds")) {
        self.discovery = discovery
        self.host = host
        self.logger = logger
        owned = Owned()
    }

    deinit {
        // The sources belong to the loop: end them there.
        let owned = owned
        host.loop.perform { owned.cancelSources() }
    }

    // MARK: Life cycle

    /// Finds the lights and starts following udev's database for LEDs that
    /// appear or go (hotplug, a module loaded later).
    package func start() {
        host.loop.perform { [self] in
            rescan()
            watchDatabase()
        }
    }

    /// Ends every request; lights that show one until ended go off (a burst
    /// in progress finishes by itself, in the kernel).
    package func shutdown() {
        host.loop.perform { [self] in
            let o = owned
            o.cancelSources()
            for light in o.lights {
                guard let shown = o.applied[light.name], shown.id != nil, !shown.bounded else { continue }
                if apply(light, program: .off) { o.applied[light.name] = Applied(id: nil, bounded: false) }
            }
            o.requests = [:]
            o.order = []
            publish()
        }
    }

    // MARK: Requests

    /// Shows `request` on its light while the arbiter lets it; nil when
    /// there is no light for it.
    package func show(_ request: LedRequest) -> LedShowID? {
        host.loop.perform { [self] () -> LedShowID? in
            let o = owned
            guard light(for: request.purpose) != nil else { return nil }
            let id = o.nextID
            o.nextID += 1
            o.requests[id] = request
            o.order.append(id)
            if let ms = LedProgram.theme(level: 1, frequencyMilliHz: request.frequencyMilliHz, cycles: request.cycles).durationMs {
                do {
                    o.timers[id] = try host.loop.addTimer(after: UInt64(ms) * 1000, accuracy: .millisecond) { [weak self] _ in
                        self?.endOnLoop(id)
                    }
                } catch {
                    // The kernel still ends the burst; only the next request waits for another change.
                    logger.warning("LED burst of \(request.owner): no timer for its end (\(error))")
                }
            }
            update()
            return LedShowID(value: id)
        }
    }

    /// Ends a request: the next one on its light shows, or the light goes off.
    package func end(_ id: LedShowID) {
        host.loop.perform { [self] in endOnLoop(id.value) }
    }

    /// feedbackd's `prefer-flash`: notifications on the flash LED.
    package func setPreferFlash(_ on: Bool) {
        host.loop.perform { [self] in
            guard owned.preferFlash != on else { return }
            owned.preferFlash = on
            update()
        }
    }

    /// Every LED found, used or why not, and what each light shows.
    package var report: [LightReport] { snapshot.withLock { $0 } }

    /// The lights in use.
    package var lights: [LedLight] { report.compactMap(\.light) }

    /// Whether a light for `purpose` exists.
    package func hasLight(for purpose: LedRequest.Purpose) -> Bool {
        host.loop.perform { [self] in light(for: purpose) != nil }
    }

    // MARK: On the loop

    private func endOnLoop(_ id: UInt64) {
        let o = owned
        o.timers.removeValue(forKey: id)?.cancel()
        guard o.requests.removeValue(forKey: id) != nil else { return }
        o.order.removeAll { $0 == id }
        update()
    }

    /// The light a purpose shows on.
    private func light(for purpose: LedRequest.Purpose) -> LedLight? {
        let status = owned.lights.first { $0.role == .status }
        let flash = owned.lights.first { $0.role == .flash }
        switch purpose {
        case .notification: return owned.preferFlash ? flash ?? status : status ?? flash
        case .alertFlash: return flash ?? status
        }
    }

    /// The requests that hold each light, by light name, in the order they came.
    private func arbiters() -> [String: LedArbiter<LedRequest>] {
        var arbiters: [String: LedArbiter<LedRequest>] = [:]
        for id in owned.order {
            guard let request = owned.requests[id], let light = light(for: request.purpose) else { continue }
            arbiters[light.name, default: LedArbiter()].add(id: id, priority: request.priority, request)
        }
        return arbiters
    }

    /// Shows on each light what its arbiter picks, writing only what changed.
    private func update() {
        let o = owned
        let arbiters = arbiters()
        for light in o.lights {
            let shown = arbiters[light.name]?.shown
            let want = Applied(id: shown?.id, bounded: shown?.request.cycles != nil)
            // A light never written shows nothing: no need to write "off" at start.
            if o.applied[light.name] == want || (o.applied[light.name] == nil && want.id == nil) { continue }
            let program = shown.map { Self.program($0.request) } ?? .off
            o.applied[light.name] = apply(light, program: program, request: shown?.request) ? want : nil
        }
        publish()
    }

    /// The program of a request, at level 1 (each LED's own level is set in `apply`).
    static func program(_ request: LedRequest) -> LedProgram {
        LedProgram.theme(level: 1, frequencyMilliHz: request.frequencyMilliHz, cycles: request.cycles)
    }

    /// Writes a program to every LED of a light: a multicolor LED's colour
    /// first (`multi_intensity`), then each LED's `pattern` and `repeat`
    /// (after a finite run the kernel keeps `repeat` at 0: it is written
    /// each time, and that write restarts the pattern).
    /// False when the kernel refused a write (logged once per light and problem).
    private func apply(_ light: LedLight, program: LedProgram, request: LedRequest? = nil) -> Bool {
        let o = owned
        let files = discovery.files, paths = discovery.paths
        let percent = Double(request?.maxBrightnessPercent ?? 100) / 100
        do throws(LedWriteError) {
            for channel in light.channels {
                let share: Double
                switch light.kind {
                case .multicolor:
                    let intensities = channel.multiIndex.map { name in
                        Self.level(request.map { $0.color.share(of: name) } ?? 0, of: channel.maxBrightness)
                    }
                    try files.write(paths.attribute(channel.name, "multi_intensity"), intensities.map(String.init).joined(separator: " ") + "\n")
                    share = 1
                case .rgb: share = request.map { $0.color.share(of: channel.color ?? "") } ?? 0
                case .single: share = request?.color.strength ?? 0
                }
                let channelProgram = program.at(level: Self.level(share * percent, of: channel.maxBrightness))
                try files.write(paths.attribute(channel.name, "pattern"), channelProgram.pattern)
                try files.write(paths.attribute(channel.name, "repeat"), "\(channelProgram.repeatCount)\n")
            }
            o.problems[light.name] = nil
            return true
        } catch {
            // One log line per light and problem, not one per request.
            if o.problems[light.name] != error.description { logger.warning("LED \(light.name): \(error)") }
            o.problems[light.name] = error.description
            return false
        }
    }

    /// A share (0–1) of `max` as a whole brightness: anything above 0 is at least 1.
    static func level(_ share: Double, of max: Int) -> Int {
        guard share > 0 else { return 0 }
        return Swift.max(1, Swift.min(max, Int((share * Double(max)).rounded())))
    }

    /// Finds the lights again (at start, and when udev's database changes).
    private func rescan() {
        let o = owned
        let found = discovery.scan()
        let old = o.lights.map(\.name)
        o.lights = found.lights
        o.skipped = found.skipped
        for gone in Set(old).subtracting(found.lights.map(\.name)) {
            o.applied[gone] = nil
            o.problems[gone] = nil
        }
        if old != found.lights.map(\.name) {
            let names = found.lights.map { "\($0.name) (\($0.kind.rawValue) \($0.role.rawValue))" }
            logger.info("LEDs: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
        }
        // A missing trigger is an event with one log line, not a failure.
        for name in found.missingTrigger where !o.reportedMissing.contains(name) {
            o.reportedMissing.insert(name)
            logger.notice("LED \(name) not used: \(found.skipped.first { $0.name == name }!.why)")
        }
        update()
    }

    /// Follows udev's database: udevd writes `+leds:NAME` when it has
    /// processed an LED (our rule's helper has run by then) and removes it
    /// when the LED goes. Without udev there is nothing to follow.
    private func watchDatabase() {
        let directory = discovery.paths.udevDatabase
        do throws(EventLoopError) {
            owned.watch = try host.loop.addInotify(
                path: directory, mask: UInt32(IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE)
            ) { [weak self] event in
                guard let self else { return }
                // The directory itself went (udev stopped): its watch is void; LEDs found stay.
                if event.has(IN_IGNORED | IN_DELETE_SELF) {
                    owned.watch?.cancel()
                    owned.watch = nil
                    return
                }
                guard event.name.hasPrefix("+leds:") else { return }
                rescan()
            }
        } catch where error.errno == ENOENT {
            // No udev database (a container, a system without udev): nothing
            // announces LEDs, so there is nothing to follow and nothing wrong.
            logger.debug("LED hotplug not followed: \(directory) does not exist (no udev); LEDs found at start are used")
        } catch {
            logger.info("LED hotplug not followed: cannot watch \(directory) (\(error)); LEDs found at start are used")
        }
    }

    private func publish() {
        let o = owned
        let arbiters = arbiters()
        var reports = o.lights.map { light in
            LightReport(
                light: light, skipped: nil, shows: arbiters[light.name]?.shown?.request.summary ?? "off",
                problem: o.problems[light.name])
        }
        reports += o.skipped.map { LightReport(light: nil, skipped: $0, shows: "off", problem: nil) }
        snapshot.withLock { $0 = reports }
    }
}
