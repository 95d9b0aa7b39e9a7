// libFuzzer target: a theme's `index.toml` (names, aliases, files, gains,
// categories, haptics), read the way the daemon does at start and reload.
// The input is written to a private theme directory that also holds one real
// sound file (`tap.wav`) and one broken one, so file references are exercised.
import Foundation
import SysoundConfig

nonisolated(unsafe) private var themeDirectory: String = {
    let dir = "/dev/shm/sysound-fuzz-theme-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    // A minimal valid 8 kHz mono 16-bit WAV of 8 frames, and a broken one.
    var wav: [UInt8] = Array("RIFF".utf8) + le32(36 + 16) + Array("WAVEfmt ".utf8) + le32(16)
    wav += [1, 0, 1, 0] + le32(8000) + le32(16000) + [2, 0, 16, 0] + Array("data".utf8) + le32(16)
    wav += [UInt8](repeating: 0, count: 16)
    FileManager.default.createFile(atPath: dir + "/tap.wav", contents: Data(wav))
    FileManager.default.createFile(atPath: dir + "/broken.wav", contents: Data("RIFF....WAVE".utf8))
    atexit { try? FileManager.default.removeItem(atPath: "/dev/shm/sysound-fuzz-theme-\(getpid())") }
    return dir
}()

private func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTheme(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let dir = themeDirectory
    FileManager.default.createFile(atPath: dir + "/index.toml", contents: Data(bytes: data, count: size))
    var config = SysoundConfiguration(dataDirectory: dir)
    config.themePaths = [dir]
    config.xdg.fallback = false
    let (theme, diagnostics) = Theme.read(configuration: config, environment: [:])
    for d in diagnostics where d.description.isEmpty { fatalError("empty diagnostic") }
    // Every sound the theme accepted must resolve by its own name.
    for entry in theme.entries {
        if (try? theme.resolve(entry.name)) == nil { fatalError("accepted sound \(entry.name) does not resolve") }
    }
    return 0
}
