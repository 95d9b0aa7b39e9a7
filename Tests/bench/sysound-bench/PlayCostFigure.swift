import CBenchMalloc
import Glibc
import Logging
import Sysound
import SysoundAudio
import SysoundConfig
import SysoundFeedback
import SysoundState
import SysoundCore

/// Figure 3: what one `play()` call costs its caller in-process, and how many
/// heap allocations it makes on the calling thread (the counting allocator of
/// CBenchMalloc), at each layer from the library down to the engine.
enum PlayCostFigure {
    static func run(_ c: BenchContext) throws {
        let clockCost = clockOverhead()
        let config = try c.writeConfig(name: "play-cost")
        let (configuration, theme, _) = try ServiceSetup.load(configPath: config)
        let logger = Logger(label: "sysound-bench")
        // The daemon's way: device open, theme preloaded, settings in memory (the watcher's).
        let settings = Locked(SystemState.defaults)
        let haptics = ServiceSetup.haptics(configuration.haptics, logger: logger, directory: nil)
        defer { haptics?.shutdown() }
        let manager = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: StateDirectory(path: c.work + "/state-cost"),
            audio: .deviceNow, haptics: haptics, settings: .read { settings.withLock { $0 } }, logger: logger)
        defer { manager.audio?.shutdown() }
        manager.preloadTheme()
        guard let engine = manager.audio else { throw BenchError("the in-process audio engine did not open") }
        let clip = try engine.clip(named: "tap")
        mkdir(c.work + "/state-embedded", 0o700)
        let library = SoundService(stateDirectory: c.work + "/state-embedded", configPath: config, mode: .embedded)
        _ = try library.play("tap")

        let tapOnly = PlayRequest(.name("tap"), haptic: false)
        let tapRequest = Request.play(PlayRequest(.name("tap")))
        let layers: [(String, () throws -> Void)] = [
            ("SoundService.play(\"tap\") (library, embedded)", { _ = try library.play("tap") }),
            ("FeedbackManager.handle(play tap) (daemon, no socket)", { _ = manager.handle(tapRequest) }),
            ("FeedbackManager.play(tap, haptic: false)", { _ = try manager.play(tapOnly) }),
            ("AudioEngine.play(clip) (engine primitive)", { _ = try engine.play(clip) }),
        ]
        let warmup = c.count(100, smoke: 5), runs = c.count(1000, smoke: 50)
        // SYSOUND_BENCH_WATCH_ALLOCATIONS=1: stop in bench_allocation_watched under a debugger.
        let watch = currentEnvironment()["SYSOUND_BENCH_WATCH_ALLOCATIONS"] == "1"
        for (name, call) in layers {
            var micros: [Double] = [], cpu: [Double] = [], allocations: [Double] = []
            var blocked: [Double] = [], preempted: [Double] = [], undisturbed: [Double] = []
            micros.reserveCapacity(runs)
            allocations.reserveCapacity(runs)
            for i in 0..<(warmup + runs) {
                let a0 = bench_thread_allocations()
                if watch { bench_watch_allocations(1) }
                let s0 = Clock.threadSwitches()
                let c0 = Clock.threadCPU()
                let t0 = Clock.now()
                try call()
                let t1 = Clock.now()
                let c1 = Clock.threadCPU()
                let s1 = Clock.threadSwitches()
                if watch { bench_watch_allocations(0) }
                let a1 = bench_thread_allocations()
                if i >= warmup {
                    let wall = Double(t1 - t0) / 1000
                    micros.append(wall)
                    cpu.append(Double(c1 - c0) / 1000)
                    allocations.append(Double(a1 - a0))
                    // Where a slow call's time went: it blocked (a lock held
                    // by the render, a syscall), it was preempted, or neither.
                    let waited = s1.voluntary > s0.voluntary, taken = s1.involuntary > s0.involuntary
                    blocked.append(waited ? 1 : 0)
                    preempted.append(taken ? 1 : 0)
                    if !waited && !taken { undisturbed.append(wall) }
                }
                // 2 ms apart: about 18 taps sound at once, below the 32 voices, so nothing is stolen.
                Clock.sleep(seconds: 0.002)
            }
            c.report.add("3", "call: " + name, unit: "µs", micros)
            c.report.add("3", "CPU time: " + name, unit: "µs", cpu)
            c.report.add("3", "call, neither blocked nor preempted: " + name, unit: "µs", undisturbed)
            c.report.add("3", "calls that blocked (a lock, a syscall): " + name, unit: "%", value: blocked.mean * 100)
            c.report.add("3", "calls preempted: " + name, unit: "%", value: preempted.mean * 100)
            c.report.add("3", "allocations: " + name, unit: "allocs", allocations)
        }
        try firstPlayAfterPause(c)
        try firstPlayAfterPrepare(c, config: config)
        c.report.notes.append(String(format: "figure 3: one clock_gettime pair costs %.0f ns (included in each call's time); calls 2 ms apart", clockCost))
    }

    /// The library's first `play()` on a new embedded service: cold (the
    /// play loads configuration and theme, opens the device, decodes the
    /// clip) and after `prepare()` (which did all that first). Each run a
    /// new service; the two alternate so the machine's drift hits both.
    static func firstPlayAfterPrepare(_ c: BenchContext, config: String) throws {
        let runs = c.count(20, smoke: 3)
        var cold: [Double] = [], prepared: [Double] = []
        for i in 0..<runs {
            for warm in [false, true] {
                let directory = c.work + "/state-first-\(i)-\(warm)"
                mkdir(directory, 0o700)
                let service = SoundService(stateDirectory: directory, configPath: config, mode: .embedded)
                if warm { service.prepareNow() }
                let t0 = Clock.now()
                _ = try service.play("tap")
                let t1 = Clock.now()
                if warm { prepared.append(Double(t1 - t0) / 1e6) } else { cold.append(Double(t1 - t0) / 1e6) }
                service.waitUntilIdle(timeoutSeconds: 2)
            }
        }
        c.report.add("3", "first play(\"tap\") on a new service, cold (library, embedded)", unit: "ms", cold)
        c.report.add("3", "first play(\"tap\") on a new service after prepare() (library, embedded)", unit: "ms", prepared)
    }

    /// `AudioEngine.play` on a device paused for idleness: the call resumes
    /// it (alcDeviceResumeSOFT) before starting the voice. Its own engine with
    /// a 30 ms idle time; each call waits until the device has paused again.
    static func firstPlayAfterPause(_ c: BenchContext) throws {
        var settings = AudioSettings()
        settings.idlePauseMilliseconds = 30
        let engine = try AudioEngine(settings: settings, output: .device)
        defer { engine.shutdown() }
        let loaded = engine.preload([ClipSource(name: "tap", path: c.tapPath)])
        if let failure = loaded.failures.first { throw BenchError("cannot load \(c.tapPath): \(failure)") }
        let clip = try engine.clip(named: "tap")
        let runs = c.count(200, smoke: 5)
        var micros: [Double] = [], allocations: [Double] = [], notPaused = 0
        for _ in 0..<(runs + 1) {
            let deadline = Clock.now() + 2_000_000_000
            while !engine.isOutputPaused && Clock.now() < deadline { Clock.sleep(seconds: 0.001) }
            if !engine.isOutputPaused { notPaused += 1 }
            Clock.sleep(seconds: 0.002)
            let a0 = bench_thread_allocations()
            let t0 = Clock.now()
            _ = try engine.play(clip)
            let t1 = Clock.now()
            let a1 = bench_thread_allocations()
            if engine.idlePauses > 1 {  // the first resume is a warm-up
                micros.append(Double(t1 - t0) / 1000)
                allocations.append(Double(a1 - a0))
            }
        }
        c.report.add("3", "call: AudioEngine.play(clip), first after an idle pause (resumes the device)", unit: "µs", micros)
        c.report.add("3", "allocations: AudioEngine.play(clip), first after an idle pause", unit: "allocs", allocations)
        if notPaused > 0 {
            c.report.problems.append("figure 3: the device had not paused within 2 s before \(notPaused) of \(runs + 1) after-pause plays")
        }
    }

    /// The median cost of two back-to-back clock reads, in nanoseconds.
    static func clockOverhead() -> Double {
        var d: [Double] = []
        for _ in 0..<1000 {
            let a = Clock.now()
            let b = Clock.now()
            d.append(Double(b - a))
        }
        return Summary(d)!.median
    }
}
