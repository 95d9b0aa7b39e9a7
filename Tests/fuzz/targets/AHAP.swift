// libFuzzer target: Core Haptics pattern files (AHAP, `vibrate --ahap`, a
// theme's `haptic = "NAME.ahap"`) and the score they become. Properties: an
// accepted file gives a score within the limits whose text form (the wire's
// `score=`) parses back equal, and whose rendering for every kind of motor is
// a valid step pattern.
import SysoundCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAHAP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var reader = AHAPReader(baseDirectory: "/themes/fuzz")
    guard let score = try? reader.read(text) else { return 0 }
    guard score.events.count + score.sounds.count <= HapticScore.maximumEvents,
          score.durationMs() <= HapticScore.maximumTotalMs
    else { fatalError("accepted a score outside the limits: \(score)") }
    let again: HapticScore
    do { again = try HapticScore(parsing: score.description) } catch {
        if score.events.isEmpty && score.sounds.isEmpty { return 0 }  // an empty pattern has no text form
        fatalError("text form \(score.description) refused: \(error)")
    }
    if again != score { fatalError("round trip changed \(score) into \(again)") }
    for motor in [MotorAbility.reference, MotorAbility(amplitudeControl: true, motor: .erm, minimumPulseMs: 40),
                  MotorAbility.of(deviceName: "gpio-vibrator", profile: nil)] {
        let pattern = score.rendered(for: motor)
        guard pattern.steps.allSatisfy({ $0.magnitude >= 0 && $0.magnitude <= 1 && $0.durationMs >= 1 }) else {
            fatalError("rendered \(pattern) for \(motor) from \(score)")
        }
    }
    return 0
}
