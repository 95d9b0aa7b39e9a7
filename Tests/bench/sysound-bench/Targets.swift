/// The targets (docs/latency.md, "What is asked of it"), judged against a full run's rows (not in smoke mode).
enum Targets {
    static func judge(_ r: inout Report) {
        let smoke = r.mode == "smoke"
        var checks: [TargetCheck] = []
        func check(_ target: String, _ measured: Double?, _ text: (Double) -> String, _ ok: (Double) -> Bool) {
            guard let measured, measured.isFinite else {
                checks.append(TargetCheck(target: target, measured: "not measured", met: nil))
                return
            }
            checks.append(TargetCheck(target: target, measured: text(measured), met: smoke ? nil : ok(measured)))
        }
        func median(_ f: String, _ n: String) -> Double? { r.row(f, n)?.summary?.median }
        func p99(_ f: String, _ n: String) -> Double? { r.row(f, n)?.summary?.p99 }

        check("CLI whole process ≤ 0.4 × pactl play-sample", r.row("1", "ratio sysound / pactl (medians)")?.value,
              { "\(fmt($0)) × (medians \(fmt(median("1", "process: sysound play tap (daemon up)") ?? .nan)) vs \(fmt(median("1", "process: pactl play-sample") ?? .nan)) ms)" },
              { $0 <= 0.4 })
        func ci(_ f: String, _ n: String) -> String {
            r.row(f, n)?.ci95.map { " (95 % CI \(fmt($0[0]))–\(fmt($0[1])))" } ?? ""
        }
        let pipewire = r.server.contains("PipeWire")
        let reference = pipewire ? 0...max(r.row("2", OnsetRun.referenceWindowLabel)?.value ?? 0, 0) : OnsetRun.referenceValid
        check("onset method valid: reference tone \(fmt(reference.lowerBound))–\(fmt(reference.upperBound)) ms", median("2", OnsetRun.referenceLabel),
              { "\(fmt($0)) ms\(ci("2", OnsetRun.referenceLabel))" }, { reference.contains($0) })
        // On PipeWire (docs/latency.md, "On PipeWire"): CLI ≤ 0.7 × pactl, and the library gets one
        // graph quantum more than on PulseAudio: the engine's 128 frames (2.7 ms)
        // with the shipped drop-in.
        let cliRatio = pipewire ? 0.7 : 0.6, libraryBudget = pipewire ? 128.0 / 48 + 3 : 3
        check("launch → sink: CLI ≤ \(fmt(cliRatio)) × pactl", r.row("2", "ratio CLI / pactl (medians)")?.value,
              { "\(fmt($0)) ×\(ci("2", "ratio CLI / pactl (medians)"))" }, { $0 <= cliRatio })
        check("launch → sink: library play() ≤ \(pipewire ? "1 quantum (128 frames) + 3 ms" : "3 ms") median",
              median("2", "launch → sink: library play() in-process"),
              { "\(fmt($0)) ms\(ci("2", "launch → sink: library play() in-process"))" }, { $0 <= libraryBudget })
        let pause = "first after an idle pause − warm (library, medians)"
        check("first sound after an idle pause within 0.2 ms of a warm one", r.row("2", pause)?.value,
              { "\(fmt($0)) ms\(ci("2", pause))" }, { $0 <= 0.2 })
        let loaded = "clips not whole at the sink: " + LeverFigure.levers[0].label + " (both cores loaded)"
        check("shipped period: no clip broken with both cores loaded", r.row("11", loaded)?.value,
              { "\(fmt($0)) of \(r.row("11", "CLI launch → sink: " + LeverFigure.levers[0].label + " (both cores loaded)")?.summary?.n ?? 0) measured" },
              { $0 == 0 })
        // The call's bound comes from what it is for (docs/latency.md, "The play() call"):
        // a call that returns within 0.1 ms in 99 of 100 adds at most a thirtieth
        // to the library's 3 ms launch → sink budget and 1.2 % to a 120 Hz frame
        // of the app's thread that calls it. It was 20 µs before: below what
        // the call must do with cold caches (its median is 20–50 µs on this
        // machine), and below one preemption on two shared cores.
        let library = "SoundService.play(\"tap\") (library, embedded)", callBound = 100.0
        let daemonPath = "FeedbackManager.handle(play tap) (daemon, no socket)"
        func callMeasured(_ layer: String) -> (Double) -> String {
            let typical = fmt(median("3", "call: " + layer) ?? .nan)
            return { "\(fmt($0)) µs p99 (median \(typical) µs)" }
        }
        check("play() call ≤ \(Int(callBound)) µs p99 (library)", p99("3", "call: " + library), callMeasured(library), { $0 <= callBound })
        check("play() call ≤ \(Int(callBound)) µs p99 (daemon's in-process path)", p99("3", "call: " + daemonPath),
              callMeasured(daemonPath), { $0 <= callBound })
        for layer in [library, "FeedbackManager.play(tap, haptic: false)", "AudioEngine.play(clip) (engine primitive)"] {
            check("no allocation on the play path: \(layer)", r.row("3", "allocations: " + layer)?.summary?.max,
                  { "\(fmt($0)) at most per call (median \(fmt(median("3", "allocations: " + layer) ?? .nan)))" }, { $0 == 0 })
        }
        check("haptic request → write ≤ 100 µs p99", p99("4", "vibrate tap → EV_FF play: FeedbackManager.handle on the loop (daemon)"),
              { "\(fmt($0)) µs p99" }, { $0 <= 100 })
        check("sound–haptic skew ≤ 2 ms (median, either way)", median("12", SkewFigure.skew).map(abs),
              { "\(fmt($0)) ms\(ci("12", SkewFigure.skew))" }, { $0 <= 2 })
        check("haptic score: its sound–haptic skew ≤ 2 ms (median, either way)", median("12", SkewFigure.scoreSkew).map(abs),
              { "\(fmt($0)) ms\(ci("12", SkewFigure.scoreSkew))" }, { $0 <= 2 })
        let blockedShift = "sound onset: uploads blocked − free (medians)"
        check("a blocked haptic upload does not move the sound (|Δ onset| ≤ 0.5 ms)", r.row("12", blockedShift)?.value.map(abs),
              { "\(fmt($0)) ms\(ci("12", blockedShift))" }, { $0 <= 0.5 })
        // Judged on the in-process write, what a settings app does; the tool's launch
        // row is mostly the gsettings tool starting (docs/bench-method.md, figure 13).
        let setting = DesktopSettingFigure.self
        check("desktop setting written (g_settings_set in-process) → policy applied ≤ 20 ms median", median("13", setting.inProcess),
              { "\(fmt($0)) ms median (launch of `gsettings set` → applied: \(fmt(median("13", setting.toolLaunch) ?? .nan)) ms, of which the tool alone \(fmt(median("13", setting.toolAlone) ?? .nan)) ms)" },
              { $0 <= 20 })
        let rates = r.rows.filter { $0.figure == "5" && $0.name.hasPrefix("play tap") && $0.unit == "req/s" }.compactMap(\.value)
        check("≥ 50 000 play requests/s through the socket", rates.max(), { "\(fmt($0)) req/s (best of 1, 4, 16 clients)" }, { $0 >= 50_000 })
        // One more is allowed: OpenAL Soft's mixer thread comes and goes with the idle pause.
        let idleThreads = r.row("5", "daemon threads: idle")?.value
        check("daemon threads do not grow with 100 clients", r.row("5", "daemon threads: 100 clients connected and sending")?.value,
              { "\(fmt($0)) threads (idle: \(idleThreads.map(fmt) ?? "?"))" }, { $0 <= (idleThreads ?? 0) + 1 })
        check("silent toggle applied ≤ 5 ms (p99)", p99("6", "silent rename → daemon state").map { $0 / 1000 },
              { "\(fmt($0)) ms p99" }, { $0 <= 5 })
        check("LockedHint change applied ≤ 5 ms (p99)", p99("10", "SetLockedHint → daemon state").map { $0 / 1000 },
              { "\(fmt($0)) ms p99 (median \(fmt((median("10", "SetLockedHint → daemon state") ?? .nan) / 1000)) ms)" }, { $0 <= 5 })
        check("identity lookup after a sender's first ≤ 50 µs (p99)", p99(IdentityFigure.figure, IdentityFigure.later),
              { "\(fmt($0)) µs p99 (median \(fmt(median(IdentityFigure.figure, IdentityFigure.later) ?? .nan)) µs)" }, { $0 <= 50 })
        check("daemon idle CPU ≤ 1 % of a core (default period)", median("8", "daemon idle CPU, " + IdleFigure.shippedLabel),
              { "\(fmt($0)) % median of 1 s windows" }, { $0 <= 1 })
        // Figure 15, the cost at rest. The first sound after an idle pause is
        // judged above, on figure 2's row.
        let rest = RestFigure.self
        check("idle daemon ≤ 0.25 wake-ups/s over all its threads, under WatchdogSec", r.row(rest.figure, rest.idleWatchdog)?.value,
              { "\(fmt($0)) /s" }, { $0 <= 0.25 })
        check("idle daemon without a watchdog: 0 wake-ups", r.row(rest.figure, rest.idleNoWatchdog)?.value,
              { "\(fmt($0)) /s" }, { $0 == 0 })
        check("sound server wake-ups with music + an idle sysound ≤ 1.1 × music alone", r.row(rest.figure, rest.serverRatio)?.value,
              { "\(fmt($0)) ×" }, { $0 <= 1.1 })
        // What an idle daemon alone holds (docs/memory.md), not its RSS, which counts shared pages.
        let memory = RestMemory.self
        check("idle daemon alone: anonymous memory ≤ 9 MB", r.row(rest.figure, memory.anonymous(memory.sysound))?.value,
              { "\(fmt($0)) MB (feedbackd: \(r.row(rest.figure, memory.anonymous(memory.feedbackd))?.value.map(fmt) ?? "?") MB)" }, { $0 <= 9 })
        check("idle daemon alone: private memory (USS) ≤ 18 MB", r.row(rest.figure, memory.uss(memory.sysound))?.value,
              { "\(fmt($0)) MB (feedbackd: \(r.row(rest.figure, memory.uss(memory.feedbackd))?.value.map(fmt) ?? "?") MB)" }, { $0 <= 18 })
        check("RSS growth ≤ 1.2 × the PCM bytes of a 50 MB theme", r.row(rest.figure, rest.rssPerPCM)?.value,
              { "\(fmt($0)) ×" }, { $0 <= 1.2 })
        // Figure 17: a media role's engine closed after its quiet time gives back what it took.
        let roles = RoleReleaseFigure.self
        check("anonymous memory after an alarm and the quiet time within 0.5 MB of idle", r.row("17", roles.anonymousAfter)?.value,
              { "\(fmt($0)) MB" }, { $0 <= 0.5 })
        check("threads and sound-server clients back after an alarm and the quiet time",
              r.row("17", roles.threadsAfter)?.value.flatMap { t in r.row("17", roles.clientsAfter)?.value.map { max(abs(t), abs($0)) } },
              { "\(fmt($0)) more at most" }, { $0 == 0 })
        check("one sound-server client and one audio thread for every role's stream: none more while an alarm plays",
              r.row("17", roles.clientsPlaying)?.value.flatMap { c in r.row("17", roles.audioThreadsPlaying)?.value.map { max(c, $0) } },
              { "\(fmt($0)) more at most" }, { $0 == 0 })
        // Figure 18: the embedded engine, as `sysound play tap` without a daemon runs it.
        let embedded = "ratio embedded / paplay (launch → sink, medians)"
        check("no daemon: launch → sink ≤ 1.0 × paplay", r.row("18", embedded)?.value,
              { "\(fmt($0)) ×\(ci("18", embedded)) (medians \(fmt(median("18", EmbeddedFigure.Tool.embedded.label) ?? .nan)) vs \(fmt(median("18", EmbeddedFigure.Tool.paplay.label) ?? .nan)) ms)" },
              { $0 <= 1 })
        check("no daemon: whole process ≤ the sound's length + 20 ms", r.row("18", EmbeddedFigure.overClip)?.value,
              { "\(fmt($0)) ms past the clip (median)" }, { $0 <= 20 })
        // Figure 19: the first sound of a session, the daemon socket-activated by it.
        let session = SessionStartFigure.self
        check("first sound of a session (socket activation) ≤ 2 × paplay, launch → sink", r.row(session.figure, session.ratio)?.value,
              { "\(fmt($0)) ×\(ci(session.figure, session.ratio))" }, { $0 <= 2 })
        r.targets = checks
    }
}
