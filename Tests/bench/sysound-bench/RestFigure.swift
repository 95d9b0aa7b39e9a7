import Foundation
import Glibc

/// Figure 15: the cost at rest. What a daemon that has nothing to
/// do costs the machine — counted as wake-ups (voluntary context switches of
/// every thread, /proc), since a wake-up costs power whether or not it uses
/// CPU time worth measuring:
///
/// 1. The daemon's own wake-ups once it has been quiet a while after its
///    last sound, under the shipped unit's watchdog (WATCHDOG_USEC as
///    systemd sets it: `sd_watchdog_enabled` reads it) and without one; two
///    daemons side by side, no music.
/// 2. The sound server's wake-ups and CPU with a music player's stream
///    (MusicStream) alone, with an idle sysound beside it, and after sysound
///    stopped: a corked stream should cost the server nothing. Judged as on a
///    desktop playing music: the fixture's low-latency recorder on the null
///    sink's monitor stopped, so the music sets the sink's latency (an
///    idle sysound's corked stream once held it at 0.75 ms). Then again with the
///    recorder back, shown, not judged: a client holding the sink at a
///    millisecond makes PulseAudio's main thread pay per stream and per
///    cycle, a corked or drained one too (about 900 wake-ups/s each here).
/// 3. Resident memory idle with the shipped theme, and its growth per byte of
///    PCM with a 50 MB theme (BigTheme) loaded in a third daemon.
/// 4. Anonymous and private memory of a daemon alone, idle, beside Debian's
///    feedbackd alone (RestMemory).
///
/// With a system and a session bus (DesktopBuses), as on a desktop.
/// The first sound after an idle pause against a warm one is figure 2's
/// ("first after an idle pause − warm"): not measured again here.
enum RestFigure {
    static let figure = "15"
    static let idleNoWatchdog = "daemon wake-ups, idle: no watchdog"
    static let idleWatchdog = "daemon wake-ups, idle: under the shipped unit's watchdog"
    static let musicAlone = "music alone"
    static let musicAndSysound = "music + an idle sysound"
    static let afterSysound = "music, after sysound stopped"
    static let serverRatio = "server wake-ups: music + an idle sysound / music alone"
    /// What the second pass adds to each of its rows' names.
    static let besideRecorder = ", beside the fixture's low-latency recorder"
    static let idleRSS = "RSS, idle: shipped theme"
    static let rssPerPCM = "RSS growth per PCM byte: big theme vs shipped"
    /// The big theme: 66 sounds of 768 000 bytes, 50.7 MB of PCM (a smoke run: 8).
    static let bigSounds = 66

    static func serverWakeups(_ server: SoundServer, _ condition: String) -> String { "\(server.label) wake-ups: \(condition)" }
    static func serverCPU(_ server: SoundServer, _ condition: String) -> String { "\(server.label) CPU: \(condition)" }

    /// WatchdogSec= of the shipped unit (config/sysound.service), in seconds.
    static func watchdogSeconds(_ c: BenchContext) -> Double? {
        let unit = c.root + "/config/sysound.service"
        return (readTextFile(unit) ?? "").split(separator: "\n").first { $0.hasPrefix("WatchdogSec=") }
            .flatMap { Double($0.dropFirst("WatchdogSec=".count).trimmingCharacters(in: .whitespaces)) }
    }

    static func run(_ c: BenchContext) throws {
        guard let watchdog = watchdogSeconds(c) else { throw BenchError("config/sysound.service has no WatchdogSec= line") }
        let shipped = try c.writeConfig(name: "rest")
        // Quiet after the last sound before counting: 60 s; a
        // smoke run waits just past the idle pause (the tap's 36 ms and the
        // pause's own work fit in 0.25 s) and counts over windows of 0.3 s:
        // seven of them, each wait taken three times, so the windows are most of its time.
        let quiet = c.seconds(60, smoke: Double(try IdleFigure.idlePause(in: shipped)) / 1000 + 0.25)
        let window = c.seconds(60, smoke: 0.3)
        // As on a desktop: without a system bus the daemon would retry it.
        let buses = try DesktopBuses(c, directory: c.work + "/rest-dbus")
        defer { buses.stop() }
        if !buses.names.isEmpty {
            c.report.notes.append("figure 15: the fixture has no D-Bus; the bench started a private \(buses.names.joined(separator: " and ")) bus for the figure, as a desktop has them")
        }
        try daemonsAtRest(c, config: shipped, watchdog: watchdog, quiet: quiet, window: window)
        try RestMemory.run(c, config: shipped, quiet: quiet)
        try recorder(c, "stop-recorder")
        do {
            defer { try? recorder(c, "start-recorder") }
            try serverBeside(c, config: shipped, watchdog: watchdog, quiet: quiet, window: window, suffix: "")
        }
        try serverBeside(c, config: shipped, watchdog: watchdog, quiet: quiet, window: window, suffix: besideRecorder)
        c.report.notes.append(String(format: "figure 15: wake-ups are voluntary context switches (/proc/PID/task/*/status) of every thread over a %.0f s window, counted from %.1f s after the daemon's last sound (`sysound play tap`); the watchdog is WATCHDOG_USEC as systemd sets it for WatchdogSec=%@ (its pings go to a notify socket that is gone by then: the same wake-up); the music is pacat with default buffering; the server rows without a suffix are measured with the fixture's low-latency recorder on the null sink's monitor stopped, so the music sets the sink's latency as on a desktop; the rows \"\(besideRecorder)\" with it running, which keeps the sink rendering in blocks of a millisecond or so, and are not judged; the first sound after an idle pause is figure 2's row", window, quiet, String(format: "%g", watchdog)))
    }

    /// Part 1 and 3: three daemons started together and left alone.
    static func daemonsAtRest(_ c: BenchContext, config: String, watchdog: Double, quiet: Double, window: Double) throws {
        let big = try BigTheme.make(c, sounds: c.count(bigSounds, smoke: 8), name: "rest-big")
        let plain = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: "rest-plain")
        defer { plain.stop() }
        let watched = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: "rest-watchdog",
                                      environment: ["WATCHDOG_USEC": String(Int(watchdog * 1e6))])
        defer { watched.stop() }
        let heavy = try BenchDaemon(binary: c.sysound, config: big.config, workDirectory: c.work, name: "rest-big")
        defer { heavy.stop() }
        for daemon in [plain, watched, heavy] {
            try daemon.waitForLog("preloaded ", timeout: 60)
            try lastSound(c, daemon)
        }
        Clock.sleep(seconds: quiet)
        let before = [plain, watched].map { ProcFS.threads(of: $0.pid) }
        let t0 = Clock.now()
        Clock.sleep(seconds: window)
        let after = [plain, watched].map { ProcFS.threads(of: $0.pid) }
        let seconds = Clock.seconds(since: t0)
        for (k, label) in [idleNoWatchdog, idleWatchdog].enumerated() {
            c.report.add(figure, label, unit: "/s", value: Double(ProcFS.spent(before[k], after[k], \.voluntarySwitches)) / seconds,
                         note: breakdown(before[k], after[k], seconds))
        }
        let rss = [plain, heavy].map { Double($0.memory.rss) }
        let pcm = try [config, big.config].map { Double(try StartupFigure.pcmBytes(config: $0)) }
        c.report.add(figure, idleRSS, unit: "MB", value: rss[0] / 1e6,
                     note: String(format: "VmRSS %.0f s after the last sound; RssAnon %.1f MB; PCM held %.2f MB", quiet + seconds, Double(plain.memory.anonymous) / 1e6, pcm[0] / 1e6))
        c.report.add(figure, "RSS, idle: \(fmt(pcm[1] / 1e6)) MB theme", unit: "MB", value: rss[1] / 1e6)
        c.report.add(figure, rssPerPCM, unit: "×", value: (rss[1] - rss[0]) / (pcm[1] - pcm[0]),
                     note: "1 means each PCM byte is held once; the big theme (BigTheme) is \(c.count(bigSounds, smoke: 8)) tones of 4 s, 16-bit stereo, plus tap")
    }

    /// Stops or starts the fixture's recorder on the null sink's monitor.
    static func recorder(_ c: BenchContext, _ command: String) throws {
        try LockedHintFigure.script(c.root + "/Tests/fixture/" + c.server.control, [command])
    }

    /// Part 2: the server with a music stream, beside an idle sysound and
    /// after it; `suffix` ends the rows' names.
    static func serverBeside(_ c: BenchContext, config: String, watchdog: Double, quiet: Double, window: Double, suffix: String) throws {
        let server = c.server.pids()
        guard !server.isEmpty else { throw BenchError("no sound server processes (the fixture's pid files)") }
        let music = try MusicStream(sink: c.sink)
        defer { music.stop() }
        // Past the stream's start: its buffer filled, the server in its steady refills.
        Clock.sleep(seconds: c.seconds(3, smoke: 0.5))
        guard music.isPlaying else { throw BenchError("pacat (the music stream) exited at once") }
        var wakeups: [String: Double] = [:]
        func measure(_ condition: String) {
            let before = ProcFS.threads(of: server), t0 = Clock.now()
            Clock.sleep(seconds: window)
            let after = ProcFS.threads(of: server), seconds = Clock.seconds(since: t0)
            wakeups[condition] = Double(ProcFS.spent(before, after, \.voluntarySwitches)) / seconds
            c.report.add(figure, serverWakeups(c.server, condition) + suffix, unit: "/s", value: wakeups[condition]!,
                         note: breakdown(before, after, seconds))
            c.report.add(figure, serverCPU(c.server, condition) + suffix, unit: "% core",
                         value: Double(ProcFS.spent(before, after, \.cpuNanoseconds)) / (seconds * 1e7))
        }
        measure(musicAlone)
        // As shipped: under the unit's watchdog (its pings do not reach the server).
        let daemon = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: "rest-music",
                                     environment: ["WATCHDOG_USEC": String(Int(watchdog * 1e6))])
        do {
            defer { daemon.stop() }
            try lastSound(c, daemon)
            Clock.sleep(seconds: quiet)
            measure(musicAndSysound)
        }
        measure(afterSysound)
        guard music.isPlaying else { throw BenchError("pacat (the music stream) stopped during the figure") }
        c.report.add(figure, serverRatio + suffix, unit: "×", value: wakeups[musicAndSysound]! / wakeups[musicAlone]!)
    }

    /// The daemon's last sound before it is left alone: `sysound play tap`.
    static func lastSound(_ c: BenchContext, _ daemon: BenchDaemon) throws {
        let status = Children.wait(try Children.spawn(c.sysound, ["play", "tap", "--state-dir", daemon.stateDirectory]))
        guard exitCode(status) == 0 else { throw BenchError("sysound play tap exited \(exitCode(status)) (daemon log: \(daemon.logPath))") }
    }

    /// Wake-ups/s by thread, the busiest first, and the preemptions meanwhile.
    static func breakdown(_ before: [String: ProcFS.Thread], _ after: [String: ProcFS.Thread], _ seconds: Double) -> String {
        let threads = ProcFS.byThread(before, after, \.voluntarySwitches)
            .map { String(format: "%@ %.2f", $0.0, Double($0.1) / seconds) }.joined(separator: ", ")
        let preempted = ProcFS.spent(before, after, \.involuntarySwitches)
        return String(format: "over %.1f s; by thread (/s): %@; preempted (involuntary switches): %llu",
                      seconds, threads.isEmpty ? "none" : threads, preempted)
    }
}
