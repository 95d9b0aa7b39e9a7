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
/// sound's onset must not move. In the first run, interleaved with the taps,
/// a haptic score (`vibrate score=…`, as an AHAP's) whose `AudioCustom`
/// sound (the same tap) starts `scoreOffsetMs` after its vibration: its
/// skew is the sound's onset less the vibration's play less that offset.
enum SkewFigure {
    static let sound = "launch → sink: play tap through the daemon (sound)"
    static let haptic = "launch → EV_FF play at the fake device (haptic)"
    static let skew = "sound–haptic skew: sink onset − EV_FF play"
    static let latency = "output latency OpenAL reports (the haptic's delay)"
    static let blocked = " (uploads blocked)"
    /// Where the score's sound starts after its tap: well inside the 350 ms
    /// between launches, with the tap's 36 ms and the output's latency after it.
    static let scoreOffsetMs = 100
    static let score = HapticScore(
        events: [.transient(atMs: 0, intensity: 1, sharpness: 0.5)], sounds: [HapticScore.Sound(atMs: scoreOffsetMs, name: "tap")])
    // No colon after the first: the clips-not-whole row names the tool by what follows the last one.
    static let scoreSound = "launch → sink: a score's AudioCustom tap, due \(scoreOffsetMs) ms after its vibration"
    static let scoreHaptic = "launch → EV_FF play: the same score's vibration"
    static let scoreSkew = "score skew: sink onset − EV_FF play − \(scoreOffsetMs) ms"

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
        let (freeRun, freePairs, _) = try measure(c, daemon, free, clip: clip, perTool: perTool, launches: [.tap, .score])
        c.report.addWithCI("12", latency, unit: "ms", freePairs[0].map(\.reported),
                           note: "ALC_DEVICE_LATENCY_SOFT as the audio monitor last read it, at each launch")
        c.report.addWithCI("12", haptic, unit: "ms", freePairs[0].map(\.haptic))
        c.report.addWithCI("12", skew, unit: "ms", freePairs[0].map { $0.sound - $0.haptic },
                           note: "positive: the haptic starts before the sound reaches the sink")
        c.report.addWithCI("12", scoreHaptic, unit: "ms", freePairs[1].map(\.haptic))
        c.report.addWithCI("12", scoreSkew, unit: "ms", freePairs[1].map { $0.sound - $0.haptic - Double(scoreOffsetMs) },
                           note: "vibrate score=\(score): positive, the sound reaches the sink after the pattern's time, counted from the vibration's play; the vibration's schedule starts the output's latency after the sounds' cues, as a paired haptic's does; target ≤ 2 ms either way")
        try freeRun.report(c, figure: "12", methodRows: false)

        let slow = FakeForceFeedbackDevice(path: "/bench/skew-rumble-slow")
        slow.blockUploads(seconds: 3600)  // released below: the driver never answers during the run
        try daemon.use(slow, waitForUploads: false)
        let (slowRun, _, skipped) = try measure(c, daemon, slow, clip: clip, perTool: perTool, launches: [.tap])
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

    /// What one launch asks of the daemon through its socket.
    enum Launch {
        /// `play tap`: a sound with its paired haptic.
        case tap
        /// `vibrate score=…` (`score`): a vibration with a sound at its offset.
        case score

        var label: String { self == .tap ? sound : scoreSound }
        var request: Request {
            self == .tap ? .play(PlayRequest(.name("tap")), wait: false) : .vibrate(VibrateRequest(.score(SkewFigure.score)))
        }
    }

    /// One onset run of `launches`, interleaved; per launch kind, the pairs of
    /// sound and haptic latencies (ms from launch) where both were seen, and
    /// how many taps' haptics were skipped.
    static func measure(
        _ c: BenchContext, _ daemon: InProcessDaemon, _ device: FakeForceFeedbackDevice, clip: [Float], perTool: Int, launches: [Launch]
    ) throws -> (OnsetRun, [[Pair]], Int) {
        let skipped = Atomic<Int>(0)
        let reported = Mutex<[UInt64: Double]>([:])
        let tools = launches.map { launch in
            OnsetRun.Tool(label: launch.label) {
                let t0 = Clock.now()
                let reply = try DaemonClient(socketPath: daemon.socketPath).send(launch.request)
                let latency = Double(daemon.manager.audio?.outputLatencyNanoseconds ?? 0) / 1e6
                reported.withLock { $0[t0] = latency }
                guard case .ok(let fields, _) = reply else { throw BenchError("\(launch.label): \(reply)") }
                if fields["haptic-skipped"] == HapticSkipReason.uploading.rawValue { skipped.add(1, ordering: .relaxed) }
                return t0
            }
        }
        let run = try OnsetRun.measure(c, tools, perTool: perTool, clip: clip)
        let plays = device.records.compactMap { r -> UInt64? in if case .play = r.operation { r.time } else { nil } }
        var pairs: [[Pair]] = launches.map { _ in [] }
        for m in run.measured where m.tool < launches.count {
            // The haptic belongs to this launch if it plays before the next one (≥ 350 ms apart).
            guard let play = plays.first(where: { $0 >= m.launch && $0 < m.launch + 300_000_000 }) else { continue }
            let latency = reported.withLock { $0[m.launch] } ?? 0
            pairs[m.tool].append(Pair(sound: m.latency, haptic: Double(play - m.launch) / 1e6, reported: latency))
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
