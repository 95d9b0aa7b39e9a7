// libFuzzer target: control-file values (`$STATE/silent`, `volume`, …) as any
// user process may write them. Property: an accepted value is stored in
// range, and the canonical content written back reads back to the same state.
import SysoundCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlValue(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let files = ControlFile.allCases
    let file = files[Int(data[0]) % files.count]
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    _ = try? ControlValue.bool(text)
    if let v = try? ControlValue.volume(text), !(v.isFinite && v >= 0 && v <= 1) {
        fatalError("volume \(v) out of range from \(ControlValue.quoted(text))")
    }
    var state = SystemState.defaults
    do {
        try file.apply(text, to: &state)
    } catch {
        if error.description.isEmpty { fatalError("empty error") }
        return 0
    }
    if !(state.volume.isFinite && state.volume >= 0 && state.volume <= 1) {
        fatalError("state volume \(state.volume) out of range after \(file) = \(ControlValue.quoted(text))")
    }
    let content = file.content(of: state)
    var again = SystemState.defaults
    do { try file.apply(content, to: &again) } catch {
        fatalError("\(file): canonical content \(ControlValue.quoted(content)) refused: \(error)")
    }
    if file.content(of: again) != content {
        fatalError("\(file): \(ControlValue.quoted(content)) does not read back the same")
    }
    return 0
}
