import Glibc
import Logging
import Synchronization
import SysoundClient
import SysoundConfig
import SysoundCore
import SysoundPlatform
import SysoundFeedback
import SysoundHaptics
import SysoundDaemon
import SysoundState
import SysoundTesting

/// Figure 12: sound–haptic skew. `play tap` (a sound with a paired haptic)
/// through a daemon's socket, loop and manager — `sysound serve`'s parts,
/// run in the bench's process so that its haptic device can be a
/// FakeForceFeedbackDevice whose records carry CLOCK_MONOTONIC times. The
/// sound's first frame at the null sink is found with the onset method of
/// figure 2 (OnsetRun: the sink's own timing mapped to CLOCK_MONOTONIC, the
/// reference tone interleaved); the haptic's first EV_FF play is when the
/// fake device executed it. Then once more with a device whose effect
/// uploads block for the whole run (a uinput process answering late): the
/// sound's onset must not move.
enum SkewFigure {
    static let sound = "launch → sink: play tap through the daemon (sound)"
    static let haptic = "launch → EV_FF play at the fake device (haptic)"
    static let skew = "sound–haptic skew: sink onset − EV_FF play"
    static let latency = "output latency OpenAL reports (the haptic's delay)"
    static let blocked = " (uploads blocked)"

    static func run(_ c: BenchContext) throws {
        let config = try c.writeConfig(name: "skew")
        let (configuration, theme, _) = try ServiceSetup.load(configPath: config)
        guard (try? theme.resolve("tap").entry.haptic) ?? nil != nil else { throw BenchError("the bench theme's tap has no paired haptic") }
        let clip = try OnsetFigure.monoClip(c.tapPath)
        let daemon = try InProcessDaemon(c, configuration, theme)
        defer { daemon.stop() }

        let free = FakeForceFeedbackDevice(path: "/bench/skew-rumble")
        try daemon.use(free)
        let perTool = c.count(60, smoke: 4)
        let (freeRun, freePairs, _) = try measure(c, daemon, free, clip: clip, perTool: perTool)
        c.report.addWithCI("12", latency, unit: "ms", freePairs.map(\.reported),
                           note: "ALC_DEVICE_LATENCY_SOFT as the audio monitor last read it, at each launch")
        c.report.addWithCI("12", haptic, unit: "ms", freePairs.map(\.haptic))
        c.report.addWithCI("12", skew, unit: "ms", freePairs.map { $0.sound - $0.haptic },
                           note: "positive: the haptic starts before the sound reaches the sink")
        try freeRun.report(c, figure: "12", methodRows: false)

        let slow = FakeForceFeedbackDevice(path: "/bench/skew-rumble-slow")
        slow.blockUploads(seconds: 3600)  // released below: the driver never answers during the run
        try daemon.use(slow, waitForUploads: false)
        let (slowRun, _, skipped) = try measure(c, daemon, slow, clip: clip, perTool: perTool)
        slow.blockUploads(seconds: 0)
        try slowRun.report(c, figure: "12", methodRows: false, condition: blocked)
        c.report.add("12", "haptics skipped (uploading) while the uploads block", unit: "requests", value: Double(skipped),
                     note: "of \(perTool); the sound played every time")
        let a = slowRun.latencies[0], b = freeRun.latencies[0]
        c.report.add("12", "sound onset: uploads blocked − free (medians)", unit: "ms",
                     value: slowRun.median(0) - freeRun.median(0), ci95: Bootstrap.differenceCI(a, b))
        c.report.notes.append("figure 12: the daemon's parts in the bench's process (socket, loop, workers, manager, OpenAL to the null sink), so that its rumble device is a fake whose plays are stamped on CLOCK_MONOTONIC; a real evdev device adds the kernel's write → driver path (docs/haptics.md)")
    }

    struct Pair { var sound: Double; var haptic: Double; var reported: Double }

    /// One onset run of `play tap`; the pairs of sound and haptic latencies
    /// (ms from launch) where both were seen, and how many haptics were skipped.
    static func measure(
        _ c: BenchContext, _ daemon: InProcessDaemon, _ device: FakeForceFeedbackDevice, clip: [Float], perTool: Int
    ) throws -> (OnsetRun, [Pair], Int) {
        let skipped = Atomic<Int>(0)
        let reported = Mutex<[UInt64: Double]>([:])
        let tool = OnsetRun.Tool(label: sound) {
            let t0 = Clock.now()
            let reply = try DaemonClient(socketPath: daemon.socketPath).send(.play(PlayRequest(.name("tap")), wait: false))
            let latency = Double(daemon.manager.audio?.outputLatencyNanoseconds ?? 0) / 1e6
            reported.withLock { $0[t0] = latency }
            guard case .ok(let fields, _) = reply else { throw BenchError("play tap: \(reply)") }
            if fields["haptic-skipped"] == HapticSkipReason.uploading.rawValue { skipped.add(1, ordering: .relaxed) }
            return t0
        }
        let run = try OnsetRun.measure(c, [tool], perTool: perTool, clip: clip)
        let plays = device.records.compactMap { r -> UInt64? in if case .play = r.operation { r.time } else { nil } }
        var pairs: [Pair] = []
        for m in run.measured where m.tool == 0 {
            // The haptic belongs to this launch if it plays before the next one (≥ 350 ms apart).
            guard let play = plays.first(where: { $0 >= m.launch && $0 < m.launch + 300_000_000 }) else { continue }
            let latency = reported.withLock { $0[m.launch] } ?? 0
            pairs.append(Pair(sound: m.latency, haptic: Double(play - m.launch) / 1e6, reported: latency))
        }
        return (run, pairs, skipped.load(ordering: .relaxed))
    }
}

/// `sysound serve`'s parts, in this process: the loop on its own thread,
/// the workers, the manager with the audio device open and the theme
/// preloaded, and the haptics engine built by ServiceSetup on that loop.
final class InProcessDaemon: @unchecked Sendable {
    let daemon: Daemon
    let haptics: HapticsEngine
    let manager: FeedbackManager
    private let thread: PosixThread
    var socketPath: String { daemon.socketPath }

    init(_ c: BenchContext, _ configuration: SysoundConfiguration, _ theme: Theme) throws {
        var logger = Logger(label: "sysound-bench.daemon")
        logger.logLevel = .warning
        let directory = StateDirectory(path: c.work + "/state-skew")
        try directory.prepare()
        let loop = try EventLoop()
        let workers = try WorkerPool(size: Daemon.defaultWorkerCount, name: "bench-worker", loop: loop)
        let watcher = try StateWatcher(directory: directory, loop: loop, logger: logger)
        guard let haptics = ServiceSetup.haptics(
            configuration.haptics, logger: logger, directory: nil, host: LoopHost(loop: loop, workers: workers))
        else { throw BenchError("the haptics engine did not start") }
        self.haptics = haptics
        manager = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: directory, audio: .deviceNow,
            haptics: haptics, settings: .watched(watcher), logger: logger)
        manager.preloadTheme()
        var options = DaemonOptions(stateDirectory: directory.path)
        options.handleSignals = false
        daemon = try Daemon(
            options: options, handler: DaemonHandler(manager: manager, configPath: nil), loop: loop, workers: workers, logger: logger)
        let daemon = daemon
        thread = try PosixThread.start(name: "bench-daemon") { daemon.run() }
    }

    /// Makes `device` the only rumble device; waits until the theme's effects are on it.
    func use(_ device: FakeForceFeedbackDevice, waitForUploads: Bool = true) throws {
        for old in haptics.devices { haptics.detach(path: old.path) }
        guard haptics.attach(device) else { throw BenchError("the fake device was not taken") }
        guard !waitForUploads || waitFor(ms: 3000, { !self.haptics.isUploading && !device.effects.isEmpty }) else {
            throw BenchError("the theme's haptic effects were not uploaded to the fake device")
        }
    }

    func stop() {
        daemon.stop()
        thread.join()
        haptics.shutdown()
        manager.audio?.shutdown()
    }
}
