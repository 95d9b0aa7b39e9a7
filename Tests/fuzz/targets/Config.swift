// libFuzzer target: the configuration reader (TOMLKit/toml++ then our
// validation), as `sysound check` and `sysound serve` read `sysound.toml`.
// Property: no crash; every refusal is a diagnostic with a message; the
// configuration returned stays within the documented ranges.
import SysoundConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let (config, diagnostics) = SysoundConfiguration.parse(
        text: text, file: "/fuzz/sysound.toml", dataDirectory: "/fuzz", environment: ["HOME": "/home/fuzz"])
    for d in diagnostics where d.description.isEmpty { fatalError("empty diagnostic for \(text)") }
    let a = config.audio
    guard (1...256).contains(a.voices), (8_000...192_000).contains(a.sampleRate), (2...16).contains(a.periods),
          (64...8192).contains(a.periodFrames), (1...600).contains(a.maxClipSeconds), (0...1024).contains(a.maxCachedFiles),
          config.haptics.strengthCap >= 0, config.haptics.strengthCap <= 1,
          config.policy.categoryGains.values.allSatisfy({ $0 >= 0 && $0 <= 1 })
    else { fatalError("out-of-range configuration accepted from \(text)") }
    return 0
}
