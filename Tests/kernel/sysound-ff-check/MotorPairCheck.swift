// A da7280-shaped motor beside an on/off gpio-vibrator, both used by one
// engine (Tests/kernel/ffdev.c's "da7280" and "vibra" kinds): one AHAP
// pattern, each device playing the engine's rendering for its own motor,
// uploads and plays on one clock, times checked against the kernel's.
import SysoundCore
import SysoundHaptics
import SysoundPlatform

/// What ffdev's da7280 kind advertises, as drivers/input/misc/da7280.c does.
enum DA7280 {
    static let name = "da7280-haptic"
    /// input_ff_create(…, DA7280_FF_EFFECT_COUNT_MAX).
    static let effects = 15
}

struct MotorPairCheck {
    let da7280: DeviceLog
    let vibra: DeviceLog
    let directory: String
    let toleranceMs: Int

    func run(ahap: String, report: inout Report) {
        let engine: HapticsEngine
        do {
            engine = try HapticsEngine(
                deviceDirectory: directory, pins: [DevicePin(DA7280.name), DevicePin("gpio-vibrator")],
                host: LoopHost.ownThread(name: "ff-pair"))
            try engine.start()
        } catch {
            return report.check("da7280 discovery", false, "cannot start the haptics engine: \(error)")
        }
        defer { engine.shutdown() }

        let found = waitFor(3000) { engine.devices.count == 2 && !engine.isUploading }
        let da = engine.devices.first { $0.name == DA7280.name }
        let vib = engine.devices.first { $0.name == "gpio-vibrator" }
        report.check("da7280 discovery",
                     found && da?.effect == .constant && da?.effectSlots == DA7280.effects && da?.gain == true && vib?.effect == .rumble,
                     "FF_CONSTANT, \(DA7280.effects) effects, FF_GAIN beside a gpio-vibrator: devices \(engine.devices)")
        let motors = engine.deviceReport.filter(\.used)
        guard let daMotor = motors.first(where: { $0.name == DA7280.name })?.motor,
              let vibMotor = motors.first(where: { $0.name == "gpio-vibrator" })?.motor else {
            return report.check("da7280 ahap steps", false, "the two devices are not in use: \(engine.deviceReport)")
        }
        let score: HapticScore
        do { var reader = AHAPReader(); score = try reader.read(ahap) } catch {
            return report.check("da7280 ahap steps", false, "\(error)")
        }
        let machineLateness = Clock.medianLateness(ofSleeps: [10, 90, 20, 80, 100])
        let daMark = da7280.records().count, vibMark = vibra.records().count
        do { try engine.vibrate(score: score) } catch { return report.check("da7280 ahap steps", false, "\(error)") }
        let daPlan = Pulse.expected(from: score.rendered(for: daMotor)), vibPlan = Pulse.expected(from: score.rendered(for: vibMotor))
        let daSeen = da7280.wait(from: daMark) { $0.pulses().count == daPlan.count && $0.pulses().last?.stopUs != nil }
        let vibSeen = vibra.wait(from: vibMark) { $0.pulses().count == vibPlan.count && $0.pulses().last?.stopUs != nil }
        let daPulses = daSeen.pulses(), vibPulses = vibSeen.pulses()

        // The da7280 gets levels as FF_CONSTANT effects (rumble would be refused):
        // a sharp full tap (10 ms), a dull half tap (20 ms), 0.8 for 100 ms.
        func level(_ m: Double) -> Int { Int(RumbleEffect(magnitude: m, lengthMs: 1, kind: .constant).level) }
        let daShape = daPulses.map { [$0.strong, $0.lengthMs] }
        report.check("da7280 ahap steps",
                     daShape == [[level(1), 10], [level(0.5), 20], [level(0.8), 100]] && daSeen.constantUploads == 3
                         && daSeen.refusedUploads == 0 && daSeen.uploads == 0,
                     "FF_CONSTANT level and length of each play: \(daShape); \(daSeen.constantUploads) constant uploads, "
                         + "\(daSeen.refusedUploads) refused, \(daSeen.uploads) rumble")
        // The gpio-vibrator, on the same request, gets its own rendering: full
        // on-time, never shorter than its minimum felt pulse.
        let vibShape = vibPulses.map { [$0.strong, $0.lengthMs] }
        report.check("per-device rendering",
                     vibShape == vibPlan.map { [$0.strong, $0.lengthMs] } && !vibShape.isEmpty
                         && vibShape.allSatisfy { $0[0] == 0xFFFF && $0[1] >= vibMotor.minimumPulseMs } && vibShape != daShape,
                     "gpio-vibrator (\(vibMotor)) played \(vibShape), its rendering \(vibPlan.map { [$0.strong, $0.lengthMs] })")
        // The times, as for the rumble motor (main.swift, 3b): the same
        // request again, its effects in the slots, each device against its own
        // rendering from the schedule's start; a 4 ms jiffy (HZ=250) and the
        // guest's sleep lateness are all the error allowed.
        Clock.sleep(ms: 100)
        var lateness = max(machineLateness, Clock.medianLateness(ofSleeps: [10, 90, 20, 80, 100]))
        let daAgain = da7280.records().count, vibAgain = vibra.records().count
        let again = Clock.nowUs()
        do { try engine.vibrate(score: score) } catch { return report.check("da7280 ahap timing", false, "\(error)") }
        let daReplay = da7280.wait(from: daAgain) { $0.pulses().count == daPlan.count && $0.pulses().last?.stopUs != nil }
        let vibReplay = vibra.wait(from: vibAgain) { $0.pulses().count == vibPlan.count && $0.pulses().last?.stopUs != nil }
        // The guest's lateness before and after: a loaded host slows it by bursts.
        lateness = max(lateness, Clock.medianLateness(ofSleeps: [10, 90, 20, 80, 100]))
        var errors = TimingErrors(starts: [daReplay.pulses(), vibReplay.pulses()])
        errors.add(daReplay.pulses(), expected: daPlan)
        errors.add(vibReplay.pulses(), expected: vibPlan)
        let uploads = daReplay.constantUploads + vibReplay.uploads
        report.check("da7280 ahap timing",
                     uploads == 0 && errors.median <= 4000 + max(0, lateness) && errors.worst <= toleranceMs * 1000,
                     "both devices, replayed from their slots (\(uploads) uploads, first play \(errors.startUs - again) µs "
                         + "after the request): median error \(errors.median) µs "
                         + "(≤ a 4 ms jiffy + sleep lateness \(lateness) µs), worst \(errors.worst) µs (≤ \(toleranceMs) ms); "
                         + "signed µs \(errors.signed)")
        let together = abs((daPulses.first?.playUs ?? 0) - (vibPulses.first?.playUs ?? Int.max / 2))
        report.check("one clock", together <= 4000 + max(0, machineLateness),
                     "the two devices' first plays \(together) µs apart, once both held their first effects")
    }
}
