import Foundation
import Glibc

/// A big theme made with sox: `sounds` tones of 4 s of 16-bit stereo at
/// 48 kHz (768 000 bytes of PCM each, as the AL buffers hold them), named
/// big-0 … big-N, plus the shipped `tap`, and a config that preloads all of
/// it. Figure 14 reloads one, figure 15 weighs one.
enum BigTheme {
    static let bytesPerSound = 4 * 48_000 * 2 * 2

    /// The file of sound `i` in a theme made by `make`.
    static func file(_ i: Int) -> String { "big-\(i).wav" }

    /// Writes the theme into `c.work`/`name` and returns a config (named
    /// `name`) whose theme it is, with a preload budget (1 GiB) above it.
    static func make(_ c: BenchContext, sounds: Int, name: String) throws -> (directory: String, config: String) {
        let theme = c.work + "/" + name
        var index = "[sounds.tap]\nfile = \"tap.wav\"\n"
        do {
            try FileManager.default.createDirectory(atPath: theme, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: c.tapPath, toPath: theme + "/tap.wav")
        } catch {
            throw BenchError("cannot copy \(c.tapPath) into \(theme): \(error)")
        }
        for i in 0..<sounds {
            let (status, output) = try runCapturing("/usr/bin/sox", [
                "-n", "-r", "48000", "-c", "2", "-b", "16", theme + "/" + file(i), "synth", "4", "sine", "\(200 + 10 * i)", "vol", "0.3",
            ])
            guard exitCode(status) == 0 else { throw BenchError("sox could not make \(file(i)): \(output)") }
            index += "[sounds.big-\(i)]\nfile = \"\(file(i))\"\n"
        }
        do { try index.write(toFile: theme + "/index.toml", atomically: true, encoding: .utf8) } catch {
            throw BenchError("cannot write \(theme)/index.toml: \(error)")
        }
        let config = try c.setConfigLine("max_preload_bytes = ", to: "1073741824", in: try c.writeConfig(name: name, theme: theme))
        return (theme, config)
    }
}
