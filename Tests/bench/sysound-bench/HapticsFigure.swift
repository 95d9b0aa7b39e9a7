import Logging
import Synchronization
import SysoundConfig
import SysoundCore
import SysoundPlatform
import SysoundHaptics
import SysoundFeedback
import SysoundState
import SysoundTesting

/// Figure 4: haptic request → the EV_FF play write, on FakeForceFeedbackDevice
/// (its records carry CLOCK_MONOTONIC times), through the engine and through
/// the manager's request handler (policy and reply included). The engine runs
/// on an event loop as in the daemon: a request made on the loop thread (the
/// daemon's socket and D-Bus handlers) writes at once; one from another thread
/// (the embedded library) is handed to the loop, one wake-up.
enum HapticsFigure {
    static func run(_ c: BenchContext) throws {
        let config = try c.writeConfig(name: "haptics")
        let (configuration, theme, _) = try ServiceSetup.load(configPath: config)
        let logger = Logger(label: "sysound-bench")
        let host = try LoopHost.ownThread(name: "bench-haptics")
        let engine = try HapticsEngine(presets: configuration.haptics.presets, deviceDirectory: nil, host: host, logger: logger)
        let device = FakeForceFeedbackDevice(path: "/bench/fake-rumble")
        guard engine.attach(device) else { throw BenchError("the fake rumble device was not taken") }
        try engine.start()
        defer { engine.shutdown() }
        let manager = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: StateDirectory(path: c.work + "/state-haptics"),
            audio: .deviceOnDemand, haptics: engine, settings: .read { SystemState.defaults }, logger: logger)
        // The manager names the theme's presets; their effects are uploaded on the workers.
        guard waitFor(ms: 2000, { device.records.contains { if case .upload = $0.operation { true } else { false } } }) else {
            throw BenchError("the theme's haptic effects were not uploaded to the fake device")
        }
        let request = Request.vibrate(VibrateRequest(.preset("tap")))
        let onLoop: (@escaping @Sendable () throws -> Void) -> () throws -> UInt64 = { call in
            {
                let outcome: Result<UInt64, BenchError> = host.loop.perform {
                    let t0 = MonotonicClock.now()
                    do { try call() } catch { return .failure(BenchError("\(error)")) }
                    return .success(t0)
                }
                return try outcome.get()
            }
        }
        let layers: [(String, () throws -> UInt64)] = [
            ("vibrate tap → EV_FF play: HapticsEngine.vibrate on the loop (daemon)", onLoop { try engine.vibrate(preset: "tap") }),
            ("vibrate tap → EV_FF play: FeedbackManager.handle on the loop (daemon)", onLoop {
                guard case .ok = manager.handle(request) else { throw BenchError("vibrate tap was refused") }
            }),
            ("vibrate tap → EV_FF play: HapticsEngine.vibrate from another thread (embedded)", {
                let t0 = MonotonicClock.now()
                try engine.vibrate(preset: "tap")
                return t0
            }),
        ]
        let warmup = c.count(10, smoke: 2), runs = c.count(200, smoke: 10)
        for (name, call) in layers {
            // The manager's vibrate has priority 1: let nothing of one layer outrank the next.
            engine.stop()
            var starts: [UInt64] = []
            for i in 0..<(warmup + runs) {
                let t0 = try call()
                if i >= warmup { starts.append(t0) }
                // The tap preset lasts 15 ms: each request finds the device idle.
                MonotonicClock.sleep(ms: 20)
            }
            let plays = device.records.compactMap { r -> UInt64? in if case .play = r.operation { r.time } else { nil } }
            var micros: [Double] = []
            var unmatched = 0
            for (k, t0) in starts.enumerated() {
                let limit = k + 1 < starts.count ? starts[k + 1] : UInt64.max
                if let t = plays.first(where: { $0 >= t0 && $0 < limit }) { micros.append(Double(t - t0) / 1000) } else { unmatched += 1 }
            }
            if unmatched > 0 { c.report.problems.append("figure 4: \(unmatched) of \(starts.count) requests (\(name)) had no play write") }
            c.report.add("4", name, unit: "µs", micros)
        }
    }
}

/// Polls `condition` every millisecond for up to `ms`.
func waitFor(ms: Int, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + UInt64(ms) * 1_000_000
    while !condition() {
        if MonotonicClock.now() > deadline { return false }
        MonotonicClock.sleep(ms: 1)
    }
    return true
}
