// libFuzzer target: the haptic pattern text form (wire `pattern=`, config
// presets). Property: an accepted pattern respects every limit and its text
// form parses back equal.
import SysoundCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHapticPattern(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let pattern = try? HapticPattern(parsing: text) else { return 0 }
    guard !pattern.steps.isEmpty, pattern.steps.count <= HapticPattern.maximumSteps,
          pattern.durationMs <= HapticPattern.maximumTotalMs,
          pattern.steps.allSatisfy({ $0.magnitude >= 0 && $0.magnitude <= 1 && $0.durationMs >= 1 && $0.durationMs <= HapticPattern.maximumStepMs })
    else { fatalError("accepted a pattern outside the limits: \(pattern)") }
    let again: HapticPattern
    do { again = try HapticPattern(parsing: pattern.description) } catch {
        fatalError("text form \(pattern.description) of \(ControlValue.quoted(text)) refused: \(error)")
    }
    if again != pattern { fatalError("round trip changed \(pattern) into \(again)") }
    return 0
}
