/// Finds when a known clip started playing at the sink, in a `SinkOnsetMeter`
/// recording: the first frame above the threshold after the launch, the clip
/// fitted there (free gain, sub-frame offset), and that frame mapped to
/// CLOCK_MONOTONIC through the server's timing replies within ±50 ms of it
/// (`Mapping`: a straight line on PulseAudio, an envelope on PipeWire).
struct SinkOnsets {
    /// How the timing replies place a frame on the sink's clock.
    enum Mapping {
        /// PulseAudio: each reply places its `write_index` exactly (the sink
        /// renders in small blocks and the reply's latencies are interpolated
        /// to its timestamp), so a least-squares line goes through them.
        case line
        /// pipewire-pulse (read in PipeWire 0.3.65's
        /// src/modules/module-protocol-pulse/pulse-server.c): the record
        /// stream's `write_index` grows only in `do_process_done`, which the
        /// graph's data thread hands to the server's main loop after each
        /// cycle (`pw_loop_invoke`), by that cycle's whole quantum
        /// (`pd.write_inc`); `do_get_record_latency` answers from that main
        /// loop with `sink_usec` 0, `source_usec` the stream's graph delay
        /// (`pw_time.buffered` + `delay`; 0 here) and as timestamp
        /// `gettimeofday()` at the reply, not the cycle's time. So one reply
        /// places its index only somewhere within a quantum: a line through
        /// the replies themselves is off by up to a quantum, differently per
        /// onset (the reference read 4–147 ms with it).
        ///
        /// What a reply does bound: when the index first reads W, the cycle
        /// that wrote up to W has been handed over. That cycle's monitor data
        /// is the sink's previous cycle — the null sink drives the graph, and
        /// the record stream, fed from the driver's monitor ports, runs at
        /// the cycle's start, before the sink mixes this cycle's input. Seen
        /// in the server's own counters: the reply at which the reference
        /// stream's `read_index` first passes the clip's start (the cycle
        /// that took it from the stream) is the one at which the record
        /// stream's index first reaches the clip's first frame, not passes
        /// it. So frame W is the first the sink played in the cycle just
        /// handed over, and it played no later than the first reply that
        /// reads W (`steps`). The sink's clock is a straight line (a timer
        /// drives it) under all these bounds; the tightest such line is the
        /// lower convex hull of the bounds (`envelope`). It sits above the
        /// true clock by the server's hand-over (cycle start → main loop)
        /// plus the poll's granularity at the hull's best points, so it reads
        /// onsets late, never early, by that much; the reference tone checks
        /// the whole (OnsetRun.referenceBounds).
        case envelope
    }

    /// −24 dBFS.
    static let threshold: Float = 0.0631
    static let fitWindow = 50e6  // ns either side of the onset
    /// Frames of the clip compared (10 ms at 48 kHz): its attack.
    static let fitFrames = 480
    /// How far the fitted start may move from the threshold estimate (1 ms).
    static let search = 48
    /// Unexplained energy above this share: not the clip as it was played.
    static let maxResidual = 0.05

    enum Miss: Error {
        /// No timing replies near the launch, or too few to fit a line.
        case noTiming
        /// Sound already there before the launch (the previous one not over).
        case notQuiet
        /// Nothing above the threshold in the time allowed.
        case silent
        /// The clip's attack does not fit what was recorded (another sound, a gap).
        case badFit(Double)
    }

    struct Onset {
        /// Launch → the clip's first sample at the sink, ms.
        var latency: Double
        /// Fitted gain of the clip, and the residual energy left, as a share of the recorded.
        var gain: Double
        var residual: Double
        /// The same over the whole clip: above `maxResidual` the clip did not
        /// arrive whole (a gap from an underrun, or another sound on top).
        var wholeResidual: Double
        var isWhole: Bool { wholeResidual < SinkOnsets.maxResidual }
        /// Timing replies the line went through, and the worst one's distance from it (ms).
        var replies: Int
        var lineError: Double
        /// Replies left out of the line as too far from the first fit.
        var dropped: Int
        /// The line's slope: recorded frames per second of the sink's clock.
        var framesPerSecond: Double
        /// The smallest step of `write_index` within ±50 ms (frames): on
        /// PipeWire the graph's quantum at the onset.
        var quantum: Double?
        /// The clip's first sample in the recording (fractional frame).
        var frame: Double
        /// Envelope mapping: how far into its graph cycle the clip started
        /// (frames, modulo `quantum`): from the record stream's index steps,
        /// which fall on cycle boundaries, so no time mapping enters it. A
        /// write onto an underrun pipewire-pulse stream starts at a cycle's
        /// first frame unless older data was left in the stream's buffer
        /// (OnsetRun.referencePadding): the reference must read 0 here.
        var cycleOffset: Double?
        /// Envelope mapping: the graph cycle in progress before the one the
        /// clip started in (frames), during which a write that waits for the
        /// next cycle was made: the record stream's last index step at or
        /// before the onset, or the step before that if smaller — a reply
        /// that came late merges two cycles into one step, and replies come
        /// late just around the reference's own write (seen: a median of 128
        /// at a 64-frame quantum). The quantum can change within ±50 ms of an
        /// onset (a stream pausing or resuming), so this, not `quantum`, is
        /// the reference's own.
        var quantumBefore: Double?
    }

    let recording: SinkOnsetMeter.Recording
    let mapping: Mapping
    /// The clip as mono float at the recording's rate.
    let clip: [Float]
    /// Where the clip itself first crosses the threshold.
    let clipCrossing: Int
    /// Envelope mapping: per step of `write_index`, the first reply that
    /// read the new index (its `playsAt` bounds when that frame played) and
    /// the step's size in frames (one quantum, or more if a reply was late).
    private let steps: [(bound: SinkOnsetMeter.TimingReply, size: Double)]

    init(_ recording: SinkOnsetMeter.Recording, clip: [Float], mapping: Mapping) throws {
        self.recording = recording
        self.mapping = mapping
        self.clip = clip
        guard let cross = clip.firstIndex(where: { abs($0) > Self.threshold }) else {
            throw BenchError("the clip never exceeds −24 dBFS; the onset method needs a louder clip")
        }
        clipCrossing = cross
        steps = zip(recording.replies, recording.replies.dropFirst()).compactMap { before, after in
            after.frame > before.frame
                ? (after, after.frame - before.frame)
                : nil
        }
    }

    /// The onset of the clip launched at `launch` (CLOCK_MONOTONIC ns); the
    /// 100 ms before it must be quiet, the onset within `within` seconds.
    func onset(after launch: UInt64, within: Double = 0.3) -> Result<Onset, Miss> {
        let t0 = Double(launch)
        guard let near = line(around: t0) else { return .failure(.noTiming) }
        let rate = 1e9 / near.nsPerFrame
        let k0 = Int(near.frame(at: t0).rounded())
        let quiet = max(0, k0 - Int(0.1 * rate)), end = min(recording.samples.count, k0 + Int(within * rate))
        guard k0 > 0, end > k0 else { return .failure(.noTiming) }
        let s = recording.samples
        if s[quiet..<k0].contains(where: { abs($0) > Self.threshold }) { return .failure(.notQuiet) }
        guard let crossing = (k0..<end).first(where: { abs(s[$0]) > Self.threshold }) else { return .failure(.silent) }
        let (start, gain, residual) = fitClip(near: crossing - clipCrossing)
        guard residual < Self.maxResidual else { return .failure(.badFit(residual)) }
        let whole = wholeResidual(start: Int(start.rounded()), gain: gain)
        // The line again, centred on the onset itself.
        guard let local = line(around: near.time(at: start)) else { return .failure(.noTiming) }
        let latency = (local.time(at: start) - t0) / 1e6
        let q = quantum(around: local.time(at: start))
        let i = mapping == .envelope ? steps.lastIndex(where: { $0.bound.frame <= start + 0.5 }) : nil
        return .success(Onset(latency: latency, gain: gain, residual: residual, wholeResidual: whole, replies: local.count, lineError: local.worst / 1e6, dropped: local.dropped,
                              framesPerSecond: 1e9 / local.nsPerFrame, quantum: q, frame: start,
                              cycleOffset: i.flatMap { i in q.map { Self.offset(start - steps[i].bound.frame, modulo: $0) } },
                              quantumBefore: i.map { i in min(steps[i].size, i > 0 ? steps[i - 1].size : .infinity) }))
    }

    /// How far past a cycle boundary (the last step of `write_index` at or
    /// before it) a frame lies, modulo `quantum` (a step that spans two
    /// cycles, a reply that came late, hides the boundary between them);
    /// within half a frame of a boundary counts as on it.
    static func offset(_ frames: Double, modulo quantum: Double) -> Double {
        guard quantum > 0 else { return frames }
        let offset = frames.truncatingRemainder(dividingBy: quantum)
        return offset > quantum - 0.5 ? offset - quantum : offset
    }

    /// The smallest step of `write_index` within ±50 ms of `time` (frames):
    /// on PipeWire the graph's quantum there (a larger step is a late reply).
    func quantum(around time: Double) -> Double? {
        steps.filter { abs($0.bound.playsAt - time) <= Self.fitWindow }.map(\.size).min()
    }

    /// time = time0 + (frame − frame0) · nsPerFrame, through `count` replies
    /// (`line`) or steps (`envelope`); `worst` is the furthest one's distance.
    struct Line {
        var frame0: Double, time0: Double, nsPerFrame: Double, count: Int, worst: Double, dropped: Int
        func time(at frame: Double) -> Double { time0 + (frame - frame0) * nsPerFrame }
        func frame(at time: Double) -> Double { frame0 + (time - time0) / nsPerFrame }
    }

    /// The mapping near `time`: the fitted line, or the envelope's edge there.
    func line(around time: Double) -> Line? {
        switch mapping {
        case .line: fittedLine(around: time)
        case .envelope: envelope(around: time)
        }
    }

    /// The lower convex hull of the step bounds within ±50 ms of `time`
    /// (Mapping.envelope), as its edge at `time`: of all straight lines that
    /// no bound lies below, the latest there. `worst` is the bound furthest
    /// above it.
    func envelope(around time: Double) -> Line? {
        let near = steps.filter { abs($0.bound.playsAt - time) <= Self.fitWindow }
        guard near.count >= 3 else { return nil }
        var hull: [SinkOnsetMeter.TimingReply] = []  // by frame, as the steps are
        func cross(_ o: SinkOnsetMeter.TimingReply, _ a: SinkOnsetMeter.TimingReply, _ b: SinkOnsetMeter.TimingReply) -> Double {
            (a.frame - o.frame) * (b.playsAt - o.playsAt) - (a.playsAt - o.playsAt) * (b.frame - o.frame)
        }
        for s in near.map(\.bound) {
            while hull.count >= 2, cross(hull[hull.count - 2], hull[hull.count - 1], s) <= 0 { hull.removeLast() }
            hull.append(s)
        }
        guard hull.count >= 2 else { return nil }
        let i = min(max(hull.firstIndex { $0.playsAt > time } ?? hull.count - 1, 1), hull.count - 1)
        let (a, b) = (hull[i - 1], hull[i])
        var edge = Line(frame0: a.frame, time0: a.playsAt, nsPerFrame: (b.playsAt - a.playsAt) / (b.frame - a.frame),
                        count: near.count, worst: 0, dropped: 0)
        edge.worst = near.map { $0.bound.playsAt - edge.time(at: $0.bound.frame) }.max() ?? 0
        return edge
    }

    /// A least-squares line time = a + b·frame through the replies within
    /// ±50 ms of `time`, fitted twice: replies further than 3 × the median
    /// distance (at least 20 µs) from the first line are left out of the
    /// second. A reply whose server thread was preempted between its latency
    /// snapshot and its timestamp sits late by that time; on a busy machine
    /// one such reply would tilt the line.
    func fittedLine(around time: Double) -> Line? {
        let near = recording.replies.filter { abs($0.playsAt - time) <= Self.fitWindow }
        guard let first = Self.fit(near) else { return nil }
        let distances = near.map { abs(first.time(at: $0.frame) - $0.playsAt) }
        let limit = max(20_000, 3 * (Summary(distances)?.median ?? 0))
        let kept = zip(near, distances).filter { $0.1 <= limit }.map(\.0)
        guard var second = Self.fit(kept) else { return first }
        second.dropped = near.count - kept.count
        return second
    }

    static func fit(_ r: [SinkOnsetMeter.TimingReply]) -> Line? {
        guard r.count >= 3 else { return nil }
        let f0 = r.map(\.frame).mean, t0 = r.map(\.playsAt).mean
        var sff = 0.0, sft = 0.0
        for p in r {
            sff += (p.frame - f0) * (p.frame - f0)
            sft += (p.frame - f0) * (p.playsAt - t0)
        }
        guard sff > 0 else { return nil }
        let b = sft / sff
        let worst = r.map { abs(t0 + ($0.frame - f0) * b - $0.playsAt) }.max() ?? 0
        return Line(frame0: f0, time0: t0, nsPerFrame: b, count: r.count, worst: worst, dropped: 0)
    }

    /// Σ(recorded − gain·clip)² / Σ recorded² over the whole clip from `start`.
    func wholeResidual(start: Int, gain: Double) -> Double {
        let s = recording.samples
        guard start >= 0, start + clip.count <= s.count else { return 1 }
        var error = 0.0, energy = 0.0
        for j in clip.indices {
            let r = Double(s[start + j])
            error += (r - gain * Double(clip[j])) * (r - gain * Double(clip[j]))
            energy += r * r
        }
        return energy > 0 ? error / energy : 1
    }

    /// The clip's start (fractional frame) that best explains the recording
    /// near `estimate`, with the best gain for each candidate; the residual is
    /// the recorded energy the fit leaves, as a share. Each candidate is
    /// judged by that share of its own window (the 24 frames before it and
    /// the attack's), not by the energy it explains: a tone's attack fitted
    /// one period late explains more energy because its window holds more of
    /// the loud body and less of the quiet start, and can still leave under
    /// 5 % (notification.wav, a 1.33 kHz tone: 36 frames late, 3.9 % left,
    /// which made figure 9's onsets 0.75 ms late and every clip "not whole").
    func fitClip(near estimate: Int) -> (start: Double, gain: Double, residual: Double) {
        let s = recording.samples
        let n = min(Self.fitFrames, clip.count)
        guard estimate - Self.search - 24 >= 0, estimate + Self.search + n <= s.count else { return (Double(estimate), 0, 1) }
        let clipEnergy = clip[..<n].reduce(0.0) { $0 + Double($1) * Double($1) }
        // explained(d) = (r·c_d)² / |c|² / Σ r², the share of the window's energy the best gain explains; only positive gains.
        var explained: [Double] = [], gains: [Double] = []
        for d in (estimate - Self.search)...(estimate + Self.search) {
            var dot = 0.0, energy = 0.0
            for j in 0..<n { dot += Double(s[d + j]) * Double(clip[j]) }
            // The 24 frames before the start count too: sound there is not the clip.
            for j in (d - 24)..<(d + n) { energy += Double(s[j]) * Double(s[j]) }
            explained.append(dot > 0 && energy > 0 ? dot * dot / clipEnergy / energy : 0)
            gains.append(dot / clipEnergy)
        }
        let best = explained.indices.max { explained[$0] < explained[$1] }!
        var offset = 0.0
        if best > 0, best < explained.count - 1 {
            let (a, b, c) = (explained[best - 1], explained[best], explained[best + 1])
            let denom = a - 2 * b + c
            if denom < 0 { offset = 0.5 * (a - c) / denom }
        }
        return (Double(estimate - Self.search + best) + offset, gains[best], max(0, 1 - explained[best]))
    }
}
