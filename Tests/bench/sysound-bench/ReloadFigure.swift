import Foundation
import Glibc

/// Figure 14: launch → sink of `sysound play tap` while the daemon reloads a
/// big theme (SIGHUP after every file's mtime changed, so all of it is
/// decoded and uploaded again), against the same daemon idle. A reload
/// decodes and uploads on the workers without the render's lock and swaps
/// the theme after: a play meanwhile is answered from the old theme, and
/// should reach the sink as soon as it does idle.
enum ReloadFigure {
    static func run(_ c: BenchContext) throws {
        // 54 sounds of 4 s of 16-bit stereo (41.5 MB) as a big device theme; fewer in a smoke run.
        let sounds = c.count(54, smoke: 8)
        let theme = c.work + "/big-theme"
        var index = "[sounds.tap]\nfile = \"tap.wav\"\n"
        do {
            try FileManager.default.createDirectory(atPath: theme, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: c.tapPath, toPath: theme + "/tap.wav")
        } catch {
            throw BenchError("cannot copy \(c.tapPath) into \(theme): \(error)")
        }
        for i in 0..<sounds {
            let file = "big-\(i).wav"
            let (status, output) = try runCapturing("/usr/bin/sox", [
                "-n", "-r", "48000", "-c", "2", "-b", "16", theme + "/" + file, "synth", "4", "sine", "\(200 + 10 * i)", "vol", "0.3",
            ])
            guard exitCode(status) == 0 else { throw BenchError("sox could not make \(file): \(output)") }
            index += "[sounds.big-\(i)]\nfile = \"\(file)\"\n"
        }
        do { try index.write(toFile: theme + "/index.toml", atomically: true, encoding: .utf8) } catch {
            throw BenchError("cannot write \(theme)/index.toml: \(error)")
        }
        let config = try c.setConfigLine("max_preload_bytes = ", to: "1073741824", in: try c.writeConfig(name: "reload", theme: theme))
        let daemon = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: "reload")
        defer { daemon.stop() }

        var asked = 0
        /// Waits until every reload asked for has finished (the daemon logs each).
        func settle() throws {
            let deadline = Clock.now() + 60_000_000_000
            while (readTextFile(daemon.logPath) ?? "").components(separatedBy: "reloaded configuration and theme").count - 1 < asked {
                guard Clock.now() < deadline else { throw BenchError("reload \(asked) did not finish within 60 s: \(daemon.logPath)") }
                Clock.sleep(seconds: 0.01)
            }
        }
        try settle()
        let play = { () throws -> UInt64 in
            let start = Clock.now()
            Children.wait(try Children.spawn(c.sysound, ["play", "tap", "--state-dir", daemon.stateDirectory]))
            return start
        }
        let tools = [
            OnsetRun.Tool(label: "launch → sink: sysound play tap (daemon idle)") {
                try settle()
                return try play()
            },
            OnsetRun.Tool(label: "launch → sink: sysound play tap during a reload of \(sounds + 1) sounds") {
                try settle()
                let now = Date()
                for i in 0..<sounds { try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: theme + "/big-\(i).wav") }
                asked += 1
                kill(daemon.pid, SIGHUP)
                // Into the reload: the daemon has taken the signal and its workers decode.
                Clock.sleep(seconds: 0.02)
                return try play()
            },
        ]
        let clip = try OnsetFigure.monoClip(c.tapPath)
        let run = try OnsetRun.measure(c, tools, perTool: c.count(30, smoke: 3), clip: clip)
        try settle()
        c.report.add("14", "during a reload − idle (medians)", unit: "ms", value: run.median(1) - run.median(0),
                     ci95: Bootstrap.differenceCI(run.latencies[1], run.latencies[0]))
        c.report.notes.append("figure 14: the theme is \(sounds) sounds of 4 s of 16-bit stereo at 48 kHz plus tap; before each reload every file's mtime changes, so the whole theme is decoded and uploaded again")
        try run.report(c, figure: "14")
    }
}
