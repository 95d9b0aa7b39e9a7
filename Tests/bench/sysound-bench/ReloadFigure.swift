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
        let (theme, config) = try BigTheme.make(c, sounds: sounds, name: "reload")
        let daemon = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: "reload")
        defer { daemon.stop() }

        var asked = 0
        /// Waits until every reload asked for has finished (the daemon logs each).
        func settle() throws { try daemon.waitForLog("reloaded configuration and theme", count: asked, timeout: 60) }
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
                for i in 0..<sounds { try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: theme + "/" + BigTheme.file(i)) }
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
