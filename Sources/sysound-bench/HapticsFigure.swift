import Logging
import Synchronization
import SysoundConfig
import SysoundCore
import SysoundHaptics
import SysoundFeedback
import SysoundState

/// Figure 4: haptic request → the EV_FF play write, on FakeForceFeedbackDevice
/// (its records carry CLOCK_MONOTONIC times), through the engine and through
/// the manager's request handler (policy and reply included).
enum HapticsFigure {
    static func run(_ c: BenchContext) throws {
        let config = try c.writeConfig(name: "haptics")
        let (configuration, theme, _) = try ServiceSetup.load(configPath: config)
        let logger = Logger(label: "sysound-bench")
        let engine = try HapticsEngine(presets: configuration.haptics.presets, deviceDirectory: nil, logger: logger)
        let device = FakeForceFeedbackDevice(path: "/bench/fake-rumble")
        guard engine.attach(device) else { throw BenchError("the fake rumble device was not taken") }
        try engine.start()
        defer { engine.shutdown() }
        let manager = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: StateDirectory(path: c.work + "/state-haptics"),
            audio: .deviceOnDemand, haptics: engine, settings: .read { SystemState.defaults }, logger: logger)
        let request = Request.vibrate(VibrateRequest(.preset("tap")))
        let layers: [(String, () throws -> Void)] = [
            ("vibrate tap → EV_FF play: HapticsEngine.vibrate", { try engine.vibrate(preset: "tap") }),
            ("vibrate tap → EV_FF play: FeedbackManager.handle", {
                guard case .ok = manager.handle(request) else { throw BenchError("vibrate tap was refused") }
            }),
        ]
        let warmup = c.count(10, smoke: 2), runs = c.count(200, smoke: 10)
        for (name, call) in layers {
            var starts: [UInt64] = []
            for i in 0..<(warmup + runs) {
                let t0 = MonotonicClock.now()
                try call()
                if i >= warmup { starts.append(t0) }
                // The tap preset lasts 10 ms: each request finds the device idle.
                MonotonicClock.sleep(ms: 15)
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
