/// One onset measurement: launches of several tools, all playing the same
/// clip, in shuffled order ≥ 350 ms apart, the sink's monitor recorded
/// throughout (SinkOnsetMeter) and the meter's reference tone interleaved as
/// one more tool. `report` adds the rows of a figure and throws when the
/// reference says the run does not count.
struct OnsetRun {
    struct Tool {
        var label: String
        /// Starts the sound; returns the launch instant (CLOCK_MONOTONIC ns).
        var launch: () throws -> UInt64
    }

    /// Seconds between launches, unless a figure's clip is longer.
    static let spacing = 0.35
    /// What the reference must read on PulseAudio for the run to count (ms).
    /// PulseAudio plays a write on an underrun stream at once (it rewinds the sink).
    static let referenceValid = 0.05...0.3
    /// The earliest one PipeWire reference may read (ms) in a full run: the
    /// envelope only reads late when its replies are on time. Beside the rest
    /// of CI on 2 cores a reply can come late enough to put one reading a
    /// fraction of a millisecond early (seen: −0.19 and −0.43 ms in one run,
    /// its medians inside the window).
    static let earliestValid = 0.0
    static let referenceLabel = "reference: write → sink on the bench's own stream"
    static let referenceWindowLabel = "reference: valid up to (one quantum + the sink's latency)"
    static let referenceOffsetLabel = "method: reference's start into its graph cycle"
    /// On PipeWire the reference clip is padded with silence to a whole
    /// number of these frames: PipeWire's `clock.max-quantum` (2048, 0.3.65's
    /// default; the report prints it), so a power-of-two quantum divides it.
    /// pipewire-pulse 0.3.65 (module-protocol-pulse/pulse-server.c,
    /// `stream_process`, lines 1421–1457) hands the graph a playback stream's
    /// data only in whole quanta (`minreq = buffer->requested`, the cycle's
    /// size): with less than that left (`avail < minreq`) it plays silence
    /// and, as the stream has a prebuffer, leaves the rest in its ring. The
    /// unpadded `tap` (1728 frames) is 27 quanta of 64 but 6.75 of 256, so at
    /// a 256-frame quantum its last 192 frames stayed behind and played
    /// before the next reference: that one started 192, then 128, 64, 0
    /// frames into its cycle (0–4 ms late) — the 256-frame readings past one
    /// quantum of figure 9 (docs/bench-method.md, "The sink's clock": measured against the null
    /// sink's own cycle times).
    static let referencePadding = 2048

    /// References in a smoke run, at least: the window holds the median, and
    /// a reading is the wait for the next cycle (0 … one quantum) plus the
    /// envelope's lateness (0.1–0.6 ms, docs/bench-method.md, "The sink's clock"), so at a
    /// 64-frame quantum 2 of 40 quiet readings land past the window, and a
    /// median of 3 did (1.50 ms against 1.33, load 3.6); a median of 10 is
    /// past it only when most readings are. Ten also lets the stall rule
    /// (more than 10 % of the references) mean in the smoke run what it
    /// means in a full one: with 9, one stall (a 5.6 ms reading at 128
    /// frames, niced, load 1) made a run invalid.
    static let smokeReferences = 10
    /// Seconds from a reference launch to the next launch in a smoke run.
    /// The reference plays its short clip (tap: 36 ms; 43 ms padded on
    /// PipeWire) within a few ms of its write, so 0.25 s leaves the next
    /// launch's 100 ms quiet check clear by about 100 ms, room for a graph
    /// that skips cycles under load; the figure's own spacing (0.35 s,
    /// figure 9's up to 1.33 s) is for the tools' sounds, which start up to
    /// ~110 ms after their launch and may be long. Half of a smoke run's
    /// launches are references, so this is most of what a smoke onset run
    /// waits; a full run keeps one spacing for every launch.
    static let smokeReferenceSpacing = 0.25

    /// How often the meter asks for timing (µs). On PipeWire the envelope's
    /// bounds are as tight as the first reply after a cycle is early, so the
    /// replies come about once per cycle of the shortest quantum seen (64
    /// frames, 1.33 ms, while a 96-frame sysound stream runs), their phase
    /// sweeping the cycle: within ±50 ms some land just after a hand-over.
    static func pollInterval(_ server: SoundServer) -> UInt64 { server == .pipewire ? 1_000 : 5_000 }
    static func mapping(_ server: SoundServer) -> SinkOnsets.Mapping { server == .pipewire ? .envelope : .line }

    /// Per tool (the reference last): latencies of the onsets found, clips not whole, misses by kind.
    var labels: [String]
    var latencies: [[Double]]
    var broken: [Int]
    var misses: [String: Int] = [:]
    var onsets: [SinkOnsets.Onset] = []
    /// Every onset found, with its tool and launch instant (CLOCK_MONOTONIC
    /// ns), for figures that pair it with another event of the same launch.
    var measured: [(tool: Int, launch: UInt64, latency: Double)] = []
    /// The reference's onsets (their quantum, on PipeWire).
    var referenceOnsets: [SinkOnsets.Onset] = []
    var recording: SinkOnsetMeter.Recording
    var server: [String]
    /// The sink's own latency as the server reports it (ms); 0 if it does not.
    var sinkLatency: Double
    var launches: Int
    /// The load average when it ended (set by the caller).
    var load = ""

    /// `referenceClip` is what the reference tone plays, `clip` by default: a
    /// figure whose tools play a long sound gives the reference a short one,
    /// because the reference stream's buffer is sized to its clip.
    static func measure(_ c: BenchContext, _ tools: [Tool], perTool: Int, clip: [Float],
                        referenceClip: [Float]? = nil, spacing: Double = spacing) throws -> OnsetRun {
        var referenceClip = referenceClip ?? clip
        if c.server == .pipewire {
            referenceClip += repeatElement(0, count: (Self.referencePadding - referenceClip.count % Self.referencePadding) % Self.referencePadding)
        }
        let meter = try SinkOnsetMeter(sink: c.sink, referenceClip: referenceClip, pollInterval: pollInterval(c.server))
        defer { meter.stop() }
        // Half a second of recording before the first launch (the quiet check needs 100 ms).
        let ready = Clock.now() + 3_000_000_000
        while meter.frameCount < Int(SinkOnsetMeter.rate) / 2 {
            guard Clock.now() < ready else {
                throw BenchError("the record stream on \(c.sink).monitor delivered \(meter.frameCount) frames in 3 s")
            }
            Clock.sleep(seconds: 0.05)
        }
        let server = PulseServerInfo.describe(sink: c.sink, server: c.server)
        let sinkLatency = PulseServerInfo.sinkLatency(c.sink) ?? 0
        let all = tools + [Tool(label: referenceLabel, launch: { meter.playReference() })]
        var order = all.indices.flatMap { [Int](repeating: $0, count: $0 == tools.count ? max(perTool, c.smoke ? Self.smokeReferences : 0) : perTool) }
        order.shuffle()
        var launches: [(Int, UInt64)] = []
        var next = Clock.now()
        for i in order {
            Clock.sleep(until: next)
            let gap = c.smoke && i == tools.count ? min(spacing, Self.smokeReferenceSpacing) : spacing
            next = Clock.now() + UInt64(gap * 1e9)
            launches.append((i, try all[i].launch()))
        }
        // The last clip whole in the recording (the whole-clip check needs all
        // of it: figure 9's feedbackd sound lasts 1.03 s), after an onset as late as the finder allows.
        Clock.sleep(seconds: 0.5 + Double(max(clip.count, referenceClip.count)) / Double(SinkOnsetMeter.rate))
        meter.stop()
        if let failure = meter.failure { throw BenchError("the onset meter stopped: \(failure)") }
        let recording = meter.snapshot()
        let finder = try SinkOnsets(recording, clip: clip, mapping: mapping(c.server))
        let referenceFinder = referenceClip == clip ? finder : try SinkOnsets(recording, clip: referenceClip, mapping: mapping(c.server))
        var run = OnsetRun(labels: all.map(\.label), latencies: Array(repeating: [], count: all.count),
                           broken: Array(repeating: 0, count: all.count), recording: finder.recording,
                           server: server, sinkLatency: sinkLatency, launches: launches.count)
        for (i, t0) in launches {
            let reference = i == tools.count
            // A smoke run's next launch may come 0.25 s after a reference (an
            // in-process play sounds 0.3 ms later): the reference is looked
            // for over 0.1 s, some 30 times what a valid one reads, so a
            // silent one is not given that launch's sound.
            let found = reference && c.smoke
                ? referenceFinder.onset(after: t0, within: 0.1)
                : (reference ? referenceFinder : finder).onset(after: t0)
            switch found {
            case .success(let o):
                run.latencies[i].append(o.latency)
                run.onsets.append(o)
                run.measured.append((i, t0, o.latency))
                if reference { run.referenceOnsets.append(o) }
                if !o.isWhole { run.broken[i] += 1 }
            case .failure(let miss):
                // A clip whose attack does not fit arrived broken: it counts as not whole too.
                if case .badFit = miss { run.broken[i] += 1 }
                run.misses["\(all[i].label) → \(miss)", default: 0] += 1
            }
        }
        return run
    }

    func median(_ i: Int) -> Double { Summary(latencies[i])?.median ?? .nan }
    var reference: [Double] { latencies[latencies.count - 1] }

    /// The rows of `figure`: each tool's latencies with CIs and its clips not
    /// whole; the method's own figures once (`methodRows`); notes; then the
    /// reference's verdict.
    func report(_ c: BenchContext, figure: String, methodRows: Bool = true, condition: String = "") throws {
        for (i, label) in labels.enumerated() {
            c.report.addWithCI(figure, label + condition, unit: "ms", latencies[i])
        }
        for (i, label) in labels.enumerated() where i < labels.count - 1 {
            c.report.add(figure, "clips not whole at the sink: \(label.split(separator: ":").last!.dropFirst())\(condition)", unit: "clips",
                         value: Double(broken[i]), note: i == 0 ? "the fitted clip leaves > 5 % of the recorded energy over its whole length: a gap (underrun) or another sound on top" : nil)
        }
        if methodRows, c.server == .pipewire {
            c.report.add(figure, "method: write_index steps per envelope (±50 ms)", unit: "steps", onsets.map { Double($0.replies) })
            c.report.add(figure, "method: furthest step bound above the envelope", unit: "ms", onsets.map(\.lineError),
                         note: "how late the first reply after a cycle can come (the server's hand-over, the poll): what a mapping through single replies would be off by; the envelope takes the earliest")
            c.report.add(figure, "method: graph quantum at the onset", unit: "frames", onsets.compactMap(\.quantum),
                         note: "the smallest step of the record stream's write_index within ±50 ms")
            c.report.add(figure, "method: recorded frames per sink second", unit: "frames/s", onsets.map(\.framesPerSecond),
                         note: "the slope of the envelope's edge at the onset")
        } else if methodRows {
            c.report.add(figure, "method: timing replies per line fit (±50 ms)", unit: "replies", onsets.map { Double($0.replies) })
            c.report.add(figure, "method: replies left out of the line", unit: "replies", onsets.map { Double($0.dropped) },
                         note: "further than 3 × the median distance (≥ 20 µs) from a first fit: late replies of a preempted server thread")
            c.report.add(figure, "method: worst reply off its line", unit: "ms", onsets.map(\.lineError),
                         note: "how far one timing reply sits from the straight line through its neighbours: the mapping's noise")
            c.report.add(figure, "method: recorded frames per sink second", unit: "frames/s", onsets.map(\.framesPerSecond),
                         note: "the line's slope: above 48000 when the monitor's frame count runs ahead of the sink's clock")
        }
        if methodRows {
            c.report.add(figure, "method: clip fit residual (attack)", unit: "share", onsets.map(\.residual),
                         note: "energy the fitted clip (free gain) leaves unexplained over its first 10 ms and the 0.5 ms before")
            c.report.add(figure, "method: fitted clip gain", unit: "×", onsets.map(\.gain))
        }
        let drift = (recording.realtimeOffsets.end - recording.realtimeOffsets.start) / 1e6
        c.report.notes += server.map { "figure \(figure)\(condition): \($0)" }
        c.report.notes.append(String(format: "figure %@%@: %d timing replies (%d dropped: clocks not synchronized); client and server frame counts differed by at most %.0f frames; CLOCK_REALTIME − CLOCK_MONOTONIC moved %.3f ms",
                                     figure, condition, recording.replies.count, recording.unsynchronized, recording.indexMismatch, drift))
        // A graph that stalls (PipeWire skipping cycles it could not finish in time) records fewer frames than time passed.
        if let first = recording.replies.first, let last = recording.replies.last, last.playsAt > first.playsAt {
            let seconds = (last.playsAt - first.playsAt) / 1e9, frames = last.frame - first.frame
            c.report.notes.append(String(format: "figure %@%@: the monitor recorded %.0f frames per second of CLOCK_MONOTONIC over the run (%.1f s): %.1f ms of sink time short of %u frames/s (skipped cycles, or the monitor running ahead when negative)",
                                         figure, condition, frames / seconds, seconds, (seconds * Double(SinkOnsetMeter.rate) - frames) / 48, SinkOnsetMeter.rate))
        }
        let missed = misses.values.reduce(0, +)
        c.report.notes.append("figure \(figure)\(condition): \(launches) launches, \(missed) not measured" +
                              (misses.isEmpty ? "" : ": " + misses.sorted { $0.key < $1.key }.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")))
        if missed > 0 { c.report.problems.append("figure \(figure)\(condition): \(missed) of \(launches) onsets not measured (see the notes)") }
        if c.server == .pipewire {
            c.report.add(figure, Self.referenceWindowLabel + condition, unit: "ms", value: referenceBounds(c).upperBound,
                         note: "a write onto the idle reference stream starts at the graph's next cycle: 0 … one quantum (the cycle in progress at each write: the record stream's write_index step that ends where the reference started; median \(fmt(Summary(referenceOnsets.compactMap(\.quantumBefore))?.median ?? .nan)) frames) + the sink's reported latency (\(fmt(sinkLatency)) ms)")
            c.report.add(figure, Self.referenceOffsetLabel + condition, unit: "frames", referenceOnsets.compactMap(\.cycleOffset),
                         note: "the reference's first frame after the record stream's index step before it, modulo the quantum: 0 when the write started the cycle's data, as the one-quantum window assumes; data left in the stream's buffer before it would show here (the clip is padded to \(Self.referencePadding) frames so none is)")
            c.report.add(figure, "method: reference's quantum (the cycle before it)" + condition, unit: "frames", referenceOnsets.compactMap(\.quantumBefore),
                         note: "each reference's window is its own: the quantum changes within a run (sysound's stream sets its own, 128 frames shipped, while it runs, the meter's own 256 once it pauses)")
            let stalls = referenceStalls(c)
            c.report.notes.append("figure \(figure)\(condition): \(stalls.count) of \(stalls.of) reference tones found nothing (silent, no timing) or read past twice their window\(stalls.far.isEmpty ? "" : " (" + stalls.far.joined(separator: ", ") + ")"): stalls; more than 10 % makes a full run invalid")
        }
        try validate(c, figure: figure + condition)
    }

    /// The bounds the reference must read within (ms) for the run to count.
    /// PulseAudio: fixed (`referenceValid`). PipeWire has no rewinds: a write
    /// onto the idle reference stream waits for the graph's next cycle
    /// (pipewire-pulse's `stream_process` takes it from the ring only when the
    /// graph asks for the stream's next quantum) and starts that cycle's data,
    /// as nothing of the last reference is left (`referencePadding`), so it
    /// starts anywhere from 0 to one quantum after the write, and plays after
    /// the sink's own latency: 0 … quantum + sink latency, with the quantum the
    /// server ran at that reference (`Onset.quantumBefore`: the record
    /// stream's index step that ends where the reference started, the cycle
    /// in progress at the write) — not a number chosen to pass. The quantum
    /// changes within a run (sysound's stream sets its own, 128 frames
    /// shipped, while it runs, the meter's own 256 once it pauses), so each
    /// reference is held to its own. Measured against the null sink's own
    /// cycle times (docs/bench-method.md, "The sink's clock"), at 64 and at 256 frames every
    /// write was taken by the next cycle, and the envelope read that cycle's
    /// start 0.1–0.6 ms late (the hand-over).
    func referenceBounds(_ c: BenchContext, _ onset: SinkOnsets.Onset) -> ClosedRange<Double> {
        guard c.server == .pipewire else { return Self.referenceValid }
        let quantum = onset.quantumBefore ?? onset.quantum ?? 0
        return 0...(quantum / Double(SinkOnsetMeter.rate) * 1e3 + sinkLatency)
    }

    /// The bounds for the report: the references' median top.
    func referenceBounds(_ c: BenchContext) -> ClosedRange<Double> {
        guard c.server == .pipewire else { return Self.referenceValid }
        return 0...(Summary(referenceOnsets.map { referenceBounds(c, $0).upperBound })?.median ?? sinkLatency)
    }

    /// Reference launches that found nothing (no sound or no timing where the
    /// mapping looked), or read past twice their bounds' top (PipeWire): the
    /// bias of a healthy reading (the write's way to the server, the
    /// envelope's lateness) is a fraction of a quantum, so these are
    /// stretches where the graph stalled and the monitor reached the bench
    /// late. `far` lists those readings with their quantum, for the report.
    func referenceStalls(_ c: BenchContext) -> (count: Int, of: Int, far: [String]) {
        let lost = misses.filter { $0.key.hasPrefix(Self.referenceLabel) }
        let missed = lost.filter { $0.key.hasSuffix("\(SinkOnsets.Miss.silent)") || $0.key.hasSuffix("\(SinkOnsets.Miss.noTiming)") }.values.reduce(0, +)
        let far = referenceOnsets.filter { $0.latency > 2 * referenceBounds(c, $0).upperBound }
        return (missed + far.count, referenceOnsets.count + lost.values.reduce(0, +),
                far.map { "\(fmt($0.latency)) ms after a \(fmt($0.quantumBefore ?? .nan))-frame cycle" })
    }

    /// What the reference says against the method, in two kinds.
    /// `broken`: the mapping cannot be right on any machine — no reference
    /// found at all, or a median reading before the write (lateness, all that
    /// load and quantum jitter add, cannot make most readings early).
    /// `unconfirmed`: a reading outside the window a quiet machine keeps
    /// (reasons, without the figure) — the median past its bounds, one reading
    /// early, more than 10 % stalls (`referenceStalls`), and on PipeWire a
    /// median start that is not a cycle's first frame (a fresh clone's smoke
    /// run read 64 frames of a 96-frame-period figure 11 once: too few
    /// launches in a smoke run to tell a graph that changed its quantum from a
    /// wrong method). A busy machine's
    /// scheduling can cause these alone (figure 14 on PipeWire read 2.722 ms
    /// against 2.667 in one `make test`, during a reload that decodes a whole
    /// theme), so they are judged in a full run and reported by a smoke one.
    func verdict(_ c: BenchContext, figure: String) -> (broken: [String], unconfirmed: [String]) {
        var broken: [String] = [], unconfirmed: [String] = []
        guard let median = Summary(reference)?.median else {
            return (["figure \(figure) INVALID: the reference tone was found at no launch: the onset method measured nothing, so no onset of this run counts"], [])
        }
        if median < 0 {
            broken.append("figure \(figure) INVALID: the reference tone read \(fmt(median)) ms (median), before it was written: the frame → sink-clock mapping reads early, so no onset of this run counts")
        }
        guard c.server == .pipewire else {
            let bounds = referenceBounds(c)
            if median >= 0, !bounds.contains(median) {
                unconfirmed.append("the reference tone read \(fmt(median)) ms (median), outside \(fmt(bounds.lowerBound))–\(fmt(bounds.upperBound)) ms: the frame → sink-clock mapping is wrong or the server was not run at once")
            }
            return (broken, unconfirmed)
        }
        if let offset = Summary(referenceOnsets.compactMap(\.cycleOffset))?.median, abs(offset) >= 1 {
            unconfirmed.append("the reference tone started \(fmt(offset)) frames into its graph cycle (median), not at the cycle's first frame: data was left in the reference stream's buffer before it, so its latency is not 0 … one quantum and it checks nothing")
        }
        let pasts = referenceOnsets.map { $0.latency - referenceBounds(c, $0).upperBound }
        if let past = Summary(pasts)?.median, past > 0 {
            unconfirmed.append("the reference tone read \(fmt(median)) ms (median), past 0 … one quantum + the sink's latency (\(fmt(referenceBounds(c).upperBound)) ms, median of each reference's own) by a median of \(fmt(past)) ms: the frame → sink-clock mapping is wrong or the graph ran late")
        }
        if let early = reference.min(), early < Self.earliestValid, median >= 0 {
            unconfirmed.append("one reference tone read \(fmt(early)) ms, before it was written: the frame → sink-clock mapping reads early or a timing reply came late")
        }
        let stalls = referenceStalls(c)
        if stalls.count * 10 > stalls.of {
            unconfirmed.append("\(stalls.count) of \(stalls.of) reference tones found nothing or read past twice their window (\(stalls.far.joined(separator: ", "))): the graph stalled and the monitor lagged for part of the run")
        }
        return (broken, unconfirmed)
    }

    /// Throws when the method is broken (`verdict`), and in a full run also
    /// when it is unconfirmed: then no onset of the run counts. A smoke run
    /// (CI, `make test`) reports an unconfirmed method among the problems and
    /// goes on: the bench ran, and whether a busy machine kept the window is
    /// a full run's question, not a product failure.
    func validate(_ c: BenchContext, figure: String) throws {
        let (broken, unconfirmed) = verdict(c, figure: figure)
        if c.smoke {
            c.report.problems += unconfirmed.map { "figure \(figure): method not confirmed by this smoke run (judged in a full run only): \($0)" }
            if !broken.isEmpty { throw BenchError(broken.joined(separator: "; ")) }
            return
        }
        let all = broken + unconfirmed.map { "figure \(figure) INVALID: \($0), so no onset of this run counts" }
        if !all.isEmpty { throw BenchError(all.joined(separator: "; ")) }
    }
}
