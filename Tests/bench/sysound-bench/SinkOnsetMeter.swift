import CPulse
import Glibc
import SysoundAudio
import SysoundCore

/// Records a sink's monitor through libpulse's asynchronous API and maps every
/// recorded frame to CLOCK_MONOTONIC from the server's own timing, so that the
/// instant a known clip starts playing at the sink can be found (`SinkOnsets`).
/// Works on any server that speaks the pulse protocol (PulseAudio,
/// pipewire-pulse).
///
/// Use: `start()`, note each launch's `Clock.now()` (or call
/// `playReference()`, which returns its own), then `stop()` and hand
/// `snapshot()` to `SinkOnsets.find`.
///
/// Timing: every `pollInterval` µs the meter asks the server for the record
/// stream's timing (`pa_stream_update_timing_info`). On PulseAudio, in each
/// reply the frame at `write_index / frame_size` plays at `timestamp +
/// sink_usec − source_usec` (on pipewire-pulse the replies only bound that:
/// `SinkOnsets.Mapping`); `timestamp` is the server's CLOCK_REALTIME, converted
/// with an offset measured in this process. Replies whose clocks libpulse does not
/// find synchronized are dropped (and counted).
///
/// The reference: a playback stream of the meter's own (prebuffer 1 ms, no
/// latency adjustment, so it changes nothing of the sink's), idle between
/// uses so it has underrun. `playReference()` writes the clip on it and
/// returns the instant of the write: a sound whose true latency is known —
/// tiny on PulseAudio (the server's wake-up and a rewind), up to one graph
/// quantum on PipeWire (the next cycle) — which checks the whole method.
final class SinkOnsetMeter: PulseCallbackTarget, @unchecked Sendable {
    static let rate: UInt32 = 48_000

    struct TimingReply {
        /// Frame index in the recording (write_index / frame size).
        var frame: Double
        /// `timestamp + sink_usec − source_usec`, CLOCK_MONOTONIC ns: on
        /// PulseAudio when `frame` plays at the sink (`SinkOnsets.Mapping`
        /// says what it bounds on PipeWire).
        var playsAt: Double
    }

    struct Recording {
        /// Per frame: the mean of the two channels.
        var samples: [Float]
        var replies: [TimingReply]
        /// Replies dropped because libpulse did not find the clocks synchronized.
        var unsynchronized: Int
        /// Largest |client frame count − libpulse's read index| seen in a reply, in frames:
        /// both must count the same stream, or the mapping is wrong.
        var indexMismatch: Double
        /// CLOCK_REALTIME − CLOCK_MONOTONIC at the start and at the end, ns.
        var realtimeOffsets: (start: Double, end: Double)
    }

    private struct State {
        var samples: [Float] = []
        var replies: [TimingReply] = []
        var unsynchronized = 0
        var indexMismatch = 0.0
        var failure: String?
    }

    private let loop: ThreadedMainloop
    private var record: OpaquePointer?
    private var reference: OpaquePointer?
    private var timer: OpaquePointer?
    /// The clip in both channels, as written; and when the last write was made (mainloop lock).
    private let referenceStereo: [Float]
    private var referenceWrittenAt: UInt64?
    private let state = Locked(State())
    private var offsetAtStart = 0.0
    private var stopped = false
    private let pollInterval: UInt64

    /// Connects to the server named by PULSE_SERVER (or libpulse's default).
    /// `referenceClip` is mono float at 48 kHz; it is played in both channels.
    /// The record stream's timing is asked for every `pollInterval` µs.
    init(sink: String, referenceClip: [Float], pollInterval: UInt64) throws {
        referenceStereo = referenceClip.flatMap { [$0, $0] }
        self.pollInterval = pollInterval
        // The bench's embedded engines mark this process's PulseAudio clients
        // (PULSE_PROP: sysound.engine, which PipeWire's drop-in lets ask for
        // shorter latencies). libpulse merges PULSE_PROP without overwriting:
        // a value of our own keeps the meter's streams at the server's defaults.
        do throws(AudioError) {
            loop = try ThreadedMainloop(clientName: "sysound-bench onset meter", properties: [("sysound.engine", "bench-meter")])
            try connect(sink: sink, clipFrames: referenceClip.count)
        } catch { throw BenchError(error) }
    }

    private func connect(sink: String, clipFrames: Int) throws(AudioError) {
        let c = loop.context
        pa_context_set_state_callback(c, { _, me in SinkOnsetMeter.from(me).loop.signal() }, selfPointer)
        loop.lock()
        defer { loop.unlock() }
        try loop.start()
        let deadline = ThreadedMainloop.deadline(in: 5)
        try loop.connect(until: deadline)
        offsetAtStart = Self.realtimeOffset()
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: Self.rate, channels: 2)
        // The record stream: 1 ms fragments, so the recording keeps up with the sink.
        guard let r = pa_stream_new(c, "sysound-bench monitor", &spec, nil) else { throw loop.failure("pa_stream_new (record)") }
        record = r
        pa_stream_set_state_callback(r, { _, me in SinkOnsetMeter.from(me).loop.signal() }, selfPointer)
        pa_stream_set_read_callback(r, { s, _, me in SinkOnsetMeter.from(me).drain(s!) }, selfPointer)
        var recordAttr = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: Self.rate / 1000 * 8)
        guard pa_stream_connect_record(r, sink + ".monitor", &recordAttr, PA_STREAM_ADJUST_LATENCY) == 0 else {
            throw loop.failure("pa_stream_connect_record \(sink).monitor")
        }
        try loop.waitUntilReady(r, "the monitor's record stream", until: deadline)
        // The reference stream: prebuffer 1 ms, target length the clip, no latency request.
        guard let p = pa_stream_new(c, "sysound-bench reference", &spec, nil) else { throw loop.failure("pa_stream_new (playback)") }
        reference = p
        pa_stream_set_state_callback(p, { _, me in SinkOnsetMeter.from(me).loop.signal() }, selfPointer)
        let clipBytes = UInt32(max(clipFrames, 480) * 8)
        var playAttr = pa_buffer_attr(maxlength: UInt32.max, tlength: clipBytes, prebuf: Self.rate / 1000 * 8,
                                      minreq: UInt32.max, fragsize: UInt32.max)
        guard pa_stream_connect_playback(p, sink, &playAttr, PA_STREAM_NOFLAGS, nil, nil) == 0 else {
            throw loop.failure("pa_stream_connect_playback \(sink)")
        }
        try loop.waitUntilReady(p, "the reference playback stream", until: deadline)
        timer = pa_context_rttime_new(c, pa_rtclock_now() + pollInterval, { _, event, _, me in
            SinkOnsetMeter.from(me).poll(event!)
        }, selfPointer)
    }

    /// The context and the mainloop are freed with `loop`.
    deinit { stop() }

    /// Writes the reference clip on the meter's own playback stream; returns
    /// CLOCK_MONOTONIC just before the write. The write is made on the
    /// mainloop's own thread (`pa_mainloop_api_once`), which sends it to the
    /// server in that same iteration: the reference checks the server's path
    /// and the frame mapping, so the wake-up of that thread from this one —
    /// milliseconds when both cores are busy — stays out of it.
    @discardableResult
    func playReference() -> UInt64 {
        loop.lock()
        defer { loop.unlock() }
        guard !stopped else { return Clock.now() }
        referenceWrittenAt = nil
        pa_mainloop_api_once(loop.api, { _, me in
            let meter = SinkOnsetMeter.from(me)
            let now = Clock.now()
            if let stream = meter.reference {
                meter.referenceStereo.withUnsafeBytes { _ = pa_stream_write(stream, $0.baseAddress, $0.count, nil, 0, PA_SEEK_RELATIVE) }
            }
            meter.referenceWrittenAt = now
            meter.loop.signal()
        }, selfPointer)
        while referenceWrittenAt == nil { loop.wait() }
        return referenceWrittenAt!
    }

    /// Why the meter stopped early, if it did (the server went away, a stream failed).
    var failure: String? { state.withLock { $0.failure } }

    /// Frames recorded so far.
    var frameCount: Int { state.withLock { $0.samples.count } }

    /// Disconnects; the recording stays readable.
    func stop() {
        loop.lock()
        defer { loop.unlock() }
        guard !stopped else { return }
        stopped = true
        if let timer { loop.api.pointee.time_free(timer) }
        for s in [record, reference].compactMap({ $0 }) {
            pa_stream_set_read_callback(s, nil, nil)
            pa_stream_set_state_callback(s, nil, nil)
            pa_stream_disconnect(s)
            pa_stream_unref(s)
        }
        record = nil
        reference = nil
        loop.disconnect()
        loop.unlock()
        loop.stop()
        loop.lock()
    }

    /// A copy of the recording and the timing replies.
    func snapshot() -> Recording {
        let end = Self.realtimeOffset()
        return state.withLock {
            Recording(samples: $0.samples, replies: $0.replies, unsynchronized: $0.unsynchronized,
                      indexMismatch: $0.indexMismatch, realtimeOffsets: (offsetAtStart, end))
        }
    }

    /// CLOCK_REALTIME − CLOCK_MONOTONIC in ns, from the tightest of 50
    /// monotonic–realtime–monotonic sandwiches.
    static func realtimeOffset() -> Double {
        var best = (width: UInt64.max, offset: 0.0)
        for _ in 0..<50 {
            var real = timespec()
            let a = Clock.now()
            clock_gettime(CLOCK_REALTIME, &real)
            let b = Clock.now()
            let r = Double(real.tv_sec) * 1e9 + Double(real.tv_nsec)
            if b - a < best.width { best = (b - a, r - (Double(a) + Double(b)) / 2) }
        }
        return best.offset
    }

    // MARK: On the mainloop thread

    private func drain(_ s: OpaquePointer) {
        while pa_stream_readable_size(s) > 0 {
            var data: UnsafeRawPointer?
            var bytes = 0
            guard pa_stream_peek(s, &data, &bytes) == 0 else { return fail("pa_stream_peek") }
            if bytes == 0 { return }
            let frames = bytes / 8
            state.withLock { st in
                if let data {
                    let f = data.assumingMemoryBound(to: Float.self)
                    for i in 0..<frames { st.samples.append((f[2 * i] + f[2 * i + 1]) / 2) }
                } else {
                    // A hole: the server dropped data; it still counts as frames.
                    st.samples += repeatElement(0, count: frames)
                }
            }
            pa_stream_drop(s)
        }
    }

    private func poll(_ event: OpaquePointer) {
        guard let record, !stopped else { return }
        if let op = pa_stream_update_timing_info(record, { s, ok, me in
            if ok != 0, let s { SinkOnsetMeter.from(me).timingReply(s) }
        }, selfPointer) { pa_operation_unref(op) }
        pa_context_rttime_restart(loop.context, event, pa_rtclock_now() + pollInterval)
    }

    private func timingReply(_ s: OpaquePointer) {
        guard let info = pa_stream_get_timing_info(s)?.pointee, info.write_index_corrupt == 0 else { return }
        let realtime = Double(info.timestamp.tv_sec) * 1e9 + Double(info.timestamp.tv_usec) * 1e3
        let playsAt = realtime - offsetAtStart + (Double(info.sink_usec) - Double(info.source_usec)) * 1e3
        state.withLock { st in
            guard info.synchronized_clocks != 0 else { st.unsynchronized += 1; return }
            st.replies.append(TimingReply(frame: Double(info.write_index) / 8, playsAt: playsAt))
            if info.read_index_corrupt == 0 {
                st.indexMismatch = max(st.indexMismatch, abs(Double(st.samples.count) - Double(info.read_index) / 8))
            }
        }
    }

    private func fail(_ what: String) {
        let reason = loop.lastError
        state.withLock { $0.failure = $0.failure ?? "\(what): \(reason)" }
    }
}

extension BenchError {
    /// libpulse's failure, without the engine's advice (which is about `[audio] output`).
    init(_ error: AudioError) {
        if case .pulse(let operation, let reason) = error { self.init("\(operation) failed: \(reason)") } else { self.init(error.description) }
    }
}
