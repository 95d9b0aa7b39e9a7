import CPulse
import CSysoundShims
import Glibc
import Synchronization
import SysoundCore
import SysoundPlatform

/// sysound's own PulseAudio playback stream (libpulse's asynchronous API):
/// the engine's mix, rendered from OpenAL Soft's loopback device, written
/// only while something plays.
///
/// OpenAL Soft 1.19's own PulseAudio backend keeps its stream's whole buffer
/// full of mixed silence, so every new sound queues behind it (docs/latency.md,
/// "The own stream"). This stream writes nothing while idle and lets it run
/// dry; a `kick` (a voice started on the drained stream) renders and writes
/// at once, and PulseAudio plays a write onto an underrun stream at once (it
/// rewinds the sink), whatever its length. While voices play the stream
/// renders on the server's requests (a voice started then is mixed into the
/// next of them, unkicked); after their tail it stops writing again.
///
/// One thread for every role's stream: the process's one connection to the
/// server (`PulseConnection`: libpulse's threaded mainloop "sysound-audio"
/// and its context) runs every callback of every stream on it, each
/// stream's kick included (an eventfd of its own, watched with the mainloop
/// API's `io_new`, so `kick` never waits). Lock order: the mainloop lock,
/// then the engine's lock of the stream being rendered (inside its
/// renderer); nothing that holds any engine's lock takes the mainloop lock,
/// which all streams share. What other threads read (`isConnected`,
/// latency) is kept in a small lock of its own.
///
/// Why one long file: the mainloop thread's state is `private` to it,
/// so nothing else in the module can touch it off that thread. What needs none
/// of it lives beside: the buffer request (PulseStream+Request.swift), the
/// media role (PulseStream+Role.swift), the count of what is still to be
/// heard (PlayoutClock.swift).
final class PulseStream: PulseCallbackTarget, MixWriter, @unchecked Sendable {
    /// Renders `frames` stereo float32 frames into the buffer; returns whether
    /// more is to come (a voice still plays or a ramp still moves). Called on
    /// the mainloop thread with the mainloop lock held.
    typealias Renderer = (UnsafeMutablePointer<Float>, Int) -> Bool

    /// What another thread may read.
    private struct Shared {
        var failed = false
        var failure: String?
        var latencyNs: UInt64 = 0
        /// When what is written has been heard (a voice's end is told before its tail is).
        var playout = PlayoutClock()
        /// Whether a sound is being written (else the stream has run dry).
        var writing = false
        var bytesWritten: UInt64 = 0
        var underflows = 0
        var kicks = 0
        var granted: Request?
        var sinkName = ""
        var kickClosed = false
        /// Kicks written and not yet handled by the mainloop.
        var kicksPending = 0
    }

    /// `Shared.failed`'s opposite, readable without the lock: every play
    /// asks (`isConnected`) while the stream's thread may hold that lock.
    private let connected = Atomic<Bool>(true)

    static let frameBytes = 8
    /// How long a connection and a stream's creation may each take.
    static let connectTimeoutSeconds = 5.0
    let rate: Int
    /// The stream's `media.role` (PulseStream+Role.swift).
    let role: MediaRole
    let request: Request

    /// The connection the stream is on, held until `close`.
    private let connection: PulseConnection
    private var loop: ThreadedMainloop { connection.loop }
    private var context: OpaquePointer { loop.context }
    private var stream: OpaquePointer?
    private var kickEvent: OpaquePointer?
    private let kickFD: Int32
    private let shared = Locked(Shared())
    // Mainloop thread only (mainloop lock held):
    private var renderer: Renderer?
    /// Told once when the context or the stream fails (on the mainloop thread).
    private var failureHandler: (@Sendable () -> Void)?
    private var writing = false {
        didSet { if writing != oldValue { shared.withLock { [writing] in $0.writing = writing } } }
    }
    private var corked = false
    /// Whether the stream asks for the idle buffer (`Request.idle`) now.
    private var relaxed = false
    /// Whether the server is pipewire-pulse (`PulseConnection.onPipeWire`): it needs no
    /// relaxing, and it does not rewind for a write onto the drained stream.
    private var onPipeWire = false
    /// A timing update was asked for and has not come back yet.
    private var timingAsked = false
    /// When the last one was asked for (CLOCK_MONOTONIC µs).
    private var timingAskedAt: UInt64 = 0
    private var closed = false
    /// The server's answer to the last `drain` (nil while none came).
    private var drainAnswer: Bool?
    /// Requests whose reply calls back into this stream (a sink's
    /// description, a timing update), kept until answered: `close` cancels
    /// those still out. The context outlives the stream (other roles' streams
    /// are on it), so a reply after the close would reach a freed stream.
    private var awaited: [OpaquePointer] = []

    private init(settings: AudioSettings, connection: PulseConnection, role: MediaRole) throws(AudioError) {
        rate = settings.sampleRate
        self.role = role
        request = Request(settings)
        self.connection = connection
        let fd = sysound_eventfd()
        guard fd >= 0 else {
            let code = errno
            throw .pulse(operation: "eventfd", reason: String(cString: strerror(code)))
        }
        kickFD = fd
    }

    /// Creates the playback stream at the settings' rate on the process's
    /// connection to the server libpulse finds (PULSE_SERVER, else the
    /// session's; `PulseConnection.acquire` connects it if no stream has,
    /// and `realtime` makes its thread real-time), and waits until it is
    /// ready (at most `timeoutSeconds` for each). Nothing is written until a `kick`.
    /// The stream made ahead (`connectAhead`) is this call's answer when it
    /// is the one asked for.
    static func connect(
        _ settings: AudioSettings, role: MediaRole = .event, realtime: RealtimeThreads? = nil,
        timeoutSeconds: Double = connectTimeoutSeconds
    ) throws(AudioError) -> PulseStream {
        let made = takeAhead()
        if let made, made.isConnected, made.role == role, made.rate == settings.sampleRate, made.request == Request(settings) {
            made.connection.promoteOnce(realtime)
            return made
        }
        // Another stream's: closed once the new one holds the connection, which then stays.
        defer { made?.close() }
        return try connectNew(settings, role: role, realtime: realtime, timeoutSeconds: timeoutSeconds)
    }

    /// `connect` without the stream made ahead; `startCorked` as for that one.
    private static func connectNew(
        _ settings: AudioSettings, role: MediaRole, realtime: RealtimeThreads?, timeoutSeconds: Double, startCorked: Bool = false
    ) throws(AudioError) -> PulseStream {
        let connection = try PulseConnection.acquire(timeoutSeconds: timeoutSeconds, realtime: realtime)
        let s: PulseStream
        do { s = try PulseStream(settings: settings, connection: connection, role: role) } catch {
            connection.release()
            throw error
        }
        do { try s.start(timeoutSeconds: timeoutSeconds, corked: startCorked) } catch {
            s.close()
            throw error
        }
        return s
    }

    // MARK: Made ahead

    /// Starts making the event role's stream for `settings` on a thread of
    /// its own (`sysound-connect`), for the process's first output open to
    /// take (`AudioProcess.openAhead`): the connection's handshake (the
    /// cookie, the client's name, the server's name) and the stream's
    /// creation — four round trips to another process, the last one a new
    /// node's on pipewire-pulse (about 10 ms here) — overlap what a start
    /// does before that open (the theme, the policy's decision, the
    /// daemon's set-up), instead of following it.
    ///
    /// Made corked (`PA_STREAM_START_CORKED`), as after an idle pause: a
    /// corked sink input keeps no sink from suspending, so a sound the
    /// policy silences has played nothing and woken no sink; the first
    /// kick writes and uncorks. Unused (a silenced one-shot, an open of
    /// another role or of OpenAL Soft's device), it is closed by the
    /// open (`releaseAhead`) or at exit. A failure is not lost: the
    /// connection's is shared with the open's own try (`PulseConnection`'s
    /// `lastFailure`), which reports it.
    static func connectAhead(_ settings: AudioSettings) {
        ahead.withLock { ahead in
            guard ahead == nil else { return }
            // No thread to be had: the open connects by itself.
            ahead = ThreadedWork(name: "sysound-connect") {
                try? PulseStream.connectNew(settings, role: .event, realtime: nil, timeoutSeconds: connectTimeoutSeconds, startCorked: true)
            }
        }
        _ = releasesAheadAtExit
    }

    /// Whether a stream made ahead waits to be taken (or is being made).
    static var isMadeAhead: Bool { ahead.withLock { $0 != nil } }

    /// Closes the stream made ahead if no open took it. Called by every
    /// output open (`AudioOutputs.openDevice`), after its own stream, if
    /// any, was made; not on the mainloop thread.
    static func releaseAhead() {
        takeAhead()?.close()
    }

    /// The stream made ahead, once made (nil if it failed), once.
    private static func takeAhead() -> PulseStream? {
        let work = ahead.withLock { ahead in
            defer { ahead = nil }
            return ahead
        }
        return work?.wait() ?? nil
    }

    private static let ahead = Locked<ThreadedWork<PulseStream?>?>(nil)
    private static let releasesAheadAtExit: Void = AudioProcess.closeAtExit { PulseStream.releaseAhead() }

    private func start(timeoutSeconds: Double, corked startCorked: Bool) throws(AudioError) {
        lock()
        defer { unlock() }
        onPipeWire = connection.onPipeWire
        corked = startCorked
        let deadline = ThreadedMainloop.deadline(in: timeoutSeconds)
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(rate), channels: 2)
        var map = pa_channel_map()
        pa_channel_map_init_stereo(&map)
        guard let s = Self.newStream(context, &spec, &map, role: role) else { throw loop.failure("pa_stream_new") }
        stream = s
        connection.join(self)
        pa_stream_set_state_callback(s, { _, me in PulseStream.from(me).stateChanged() }, selfPointer)
        pa_stream_set_write_callback(s, { _, bytes, me in PulseStream.from(me).requested(bytes) }, selfPointer)
        pa_stream_set_latency_update_callback(s, { _, me in PulseStream.from(me).latencyUpdated() }, selfPointer)
        pa_stream_set_underflow_callback(s, { _, me in PulseStream.from(me).underflowed() }, selfPointer)
        pa_stream_set_moved_callback(s, { _, me in PulseStream.from(me).moved() }, selfPointer)
        let b = UInt32(Self.frameBytes)
        var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32(request.tlength) * b, prebuf: UInt32(request.prebuf) * b,
                                  minreq: UInt32(request.minreq) * b, fragsize: UInt32.max)
        let flags = pa_stream_flags_t(Self.flags.rawValue | (startCorked ? PA_STREAM_START_CORKED.rawValue : 0))
        guard pa_stream_connect_playback(s, nil, &attr, flags, nil, nil) == 0 else { throw loop.failure("pa_stream_connect_playback") }
        try loop.waitUntilReady(s, "the playback stream", until: deadline)
        recordGranted(s)
        if let op = describeSink(of: s) {
            // Past the deadline the sink's name stays.
            try? loop.wait(for: "the sink's description", until: deadline) { pa_operation_get_state(op) != PA_OPERATION_RUNNING }
            keepUntilAnswered(op)
        }
        let api = loop.api
        kickEvent = api.pointee.io_new(api, kickFD, PA_IO_EVENT_INPUT, { _, _, _, _, me in PulseStream.from(me).kicked() }, selfPointer)
        guard kickEvent != nil else { throw .pulse(operation: "io_new (the kick's eventfd)", reason: "refused") }
    }

    /// Sets what renders the stream's audio (before the first `kick`; from
    /// any thread not holding an engine's lock).
    func setRenderer(_ r: @escaping Renderer) {
        lock()
        renderer = r
        unlock()
    }

    /// Renders one request's worth into a scratch buffer, once, and takes and
    /// gives back a write buffer of the stream (`pa_stream_begin_write`,
    /// `pa_stream_cancel_write`): nothing is written, but the first sound's
    /// refill no longer runs that code for the first time (lazy binding, cold
    /// pages). Without it the first sound after the stream opened broke in 2
    /// of 3 runs at nice 19 on a loaded machine (PulseStreamTests), later ones
    /// not. After the renderer's engine has attached the output; from any
    /// thread not holding an engine's lock.
    func prime() {
        lock()
        defer { unlock() }
        guard let renderer, !closed else { return }
        var scratch = [Float](repeating: 0, count: request.minreq * 2)
        _ = scratch.withUnsafeMutableBufferPointer { renderer($0.baseAddress!, request.minreq) }
        if let stream {
            var data: UnsafeMutableRawPointer?
            var bytes = request.minreq * Self.frameBytes
            if pa_stream_begin_write(stream, &data, &bytes) == 0, data != nil { pa_stream_cancel_write(stream) }
        }
    }

    /// Sets what is told, once, when the stream fails (the server went
    /// away): on the mainloop thread, under its lock, so it must only post.
    func setFailureHandler(_ h: @escaping @Sendable () -> Void) {
        lock()
        failureHandler = h
        unlock()
    }

    // MARK: From any thread

    /// A voice started: the mainloop thread renders and writes now, and
    /// uncorks the stream if it was corked. Never waits (one eventfd write);
    /// safe under an engine's lock.
    func kick() {
        // Under the small lock: a play racing `close` must not write to the
        // descriptor number after it was closed (and perhaps reused).
        shared.withLock {
            guard !$0.kickClosed else { return }
            $0.kicksPending += 1
            $0.kicks += 1
            var one: UInt64 = 1
            _ = write(kickFD, &one, 8)
        }
    }

    /// Blocks until what was written has been heard: the server has played
    /// it (`pa_stream_drain`), then the sink's latency (its last timing
    /// update) has passed, and on PipeWire one graph cycle more (its drain
    /// is told when the stream's last buffer was taken into a cycle, which
    /// still has to reach the sink); at most `timeoutSeconds` for the drain.
    /// True when the server said so. The drain also starts a last write
    /// shorter than `prebuf`, which the server holds for more after an
    /// underrun mid-sound: a stream closed without it drops that tail. A
    /// corked or failed stream plays nothing more: false at once. Without
    /// an engine's lock, never on the mainloop thread.
    func drain(timeoutSeconds: Double) -> Bool {
        lock()
        let drained = drainLocked(timeoutSeconds: timeoutSeconds)
        unlock()
        guard drained else { return false }
        let after = shared.withLock { $0.playout.sinkMicros + $0.playout.drainedStartMicros }
        if after > 0 { usleep(useconds_t(min(after, 1_000_000))) }
        return true
    }

    private func drainLocked(timeoutSeconds: Double) -> Bool {
        guard let stream, !closed, !corked, pa_stream_get_state(stream) == PA_STREAM_READY else { return false }
        drainAnswer = nil
        guard let op = pa_stream_drain(stream, { _, success, me in PulseStream.from(me).drained(success != 0) }, selfPointer) else {
            return false
        }
        defer { pa_operation_unref(op) }
        do {
            try loop.wait(for: "the stream's drain", until: ThreadedMainloop.deadline(in: timeoutSeconds)) { () -> Bool? in
                if drainAnswer != nil { return true }
                return pa_stream_get_state(stream) == PA_STREAM_READY ? false : nil
            }
        } catch {
            // Past the deadline: no answer is to call back into a stream being closed.
            pa_operation_cancel(op)
            return false
        }
        return drainAnswer == true
    }

    /// False once the context or the stream failed (the server went away).
    var isConnected: Bool { connected.load(ordering: .acquiring) }
    /// Why the stream failed, once it has.
    var failure: String? { shared.withLock { $0.failure } }
    /// How long a sound started now takes to reach the sink, in ns. While a
    /// sound is being written: what is written and not yet played plus the
    /// sink's latency, as of the last timing update (`pa_stream_get_latency`);
    /// the new sound queues behind it. While the stream has run dry: on
    /// PulseAudio 0, since the next write plays at once (the server rewinds
    /// the sink; 0.14–0.26 ms in figure 2), where `pa_stream_get_latency`
    /// would still count the sink's whole latency (2 ms at 96 × 4) and hold a
    /// paired haptic back by that; on PipeWire the graph's next cycle
    /// (`recordDrainedStart`).
    var latencyNanoseconds: UInt64 {
        shared.withLock { $0.writing ? $0.latencyNs : $0.playout.drainedStartMicros * 1000 }
    }
    /// How long until what the stream has written has been heard, in ns: a
    /// voice that ended in the last block rendered is heard to its end then.
    var untilHeardNanoseconds: UInt64 {
        let now = EventLoop.monotonicNow()
        return shared.withLock { $0.playout.untilHeard(now: now) } * 1000
    }
    /// The mainloop thread's kernel id (gettid): the connection's, shared by every role's stream.
    var threadID: Int32 { connection.threadID }
    /// Bytes written on the stream since it opened.
    var bytesWritten: UInt64 { shared.withLock { $0.bytesWritten } }
    /// Kicks since the stream opened: plays that found it drained.
    var kicks: Int { shared.withLock { $0.kicks } }
    /// Underflows while a sound was being written (gaps), not the planned ones after a tail.
    var underflows: Int { shared.withLock { $0.underflows } }
    /// What the server granted (`pa_stream_get_buffer_attr`), in frames.
    var granted: Request? { shared.withLock { $0.granted } }
    /// The sink the stream plays on: its description, else its name.
    var sinkName: String { shared.withLock { $0.sinkName } }
    /// The counters and grant above, read at once.
    var facts: StreamFacts {
        shared.withLock {
            StreamFacts(threadID: connection.threadID, bytesWritten: $0.bytesWritten, kicks: $0.kicks, underflows: $0.underflows, granted: $0.granted)
        }
    }

    /// Corks the stream (`pa_stream_cork`), so an idle sink may suspend.
    /// Without the engine's lock; does not wait for the server's reply. Not while a
    /// sound is being written or a play's kick is still to be handled: the
    /// idle pause decided on the engine's loop and corks on a worker, and a
    /// play in between would otherwise be held in the corked stream until
    /// the worker's uncork (seen: taps 0.3 s late under load).
    func cork() {
        lock()
        defer { unlock() }
        // A kick written after this check is handled after the cork, and uncorks.
        guard !writing, shared.withLock({ $0.kicksPending == 0 }) else { return }
        corkLocked(true)
        relax(true)
    }

    /// Uncorks it again (a play's kick does this by itself).
    func uncork() {
        lock()
        defer { unlock() }
        relax(false)
        corkLocked(false)
    }

    /// Asks for the idle buffer (`on`) or the playing one. PulseAudio sets a
    /// sink's latency from the requests of all its streams, corked ones too:
    /// an idle sysound holding its 2 ms request kept the sink of a music
    /// player (1.5 s) at 0.75 ms and the server at 150× its wake-ups. Idle,
    /// the stream asks for the longest buffer, so the others decide; the
    /// kick asks for the playing buffer again before its first write (the
    /// server takes the two in order). Fire and forget, as the cork. Not on
    /// PipeWire, which sets no sink latency from a corked stream.
    private func relax(_ on: Bool) {
        guard let stream, !closed, relaxed != on, !onPipeWire || !on else { return }
        relaxed = on
        let r = on ? Request.idle(after: request, rate: rate) : request
        let b = UInt32(Self.frameBytes)
        var attr = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32(r.tlength) * b, prebuf: UInt32(r.prebuf) * b,
                                  minreq: UInt32(r.minreq) * b, fragsize: UInt32.max)
        if let op = pa_stream_set_buffer_attr(stream, &attr, nil, nil) { pa_operation_unref(op) }
    }

    private func corkLocked(_ on: Bool) {
        guard let stream, !closed, corked != on else { return }
        // `writing` stays: a cork that races a play's kick (the idle pause's
        // worker, see AudioEngine+Output.swift, "The idle pause") must not drop the rest of that
        // sound; a corked stream is asked for nothing, and the uncork that
        // follows resumes the requests.
        corked = on
        if let op = pa_stream_cork(stream, on ? 1 : 0, nil, nil) { pa_operation_unref(op) }
    }

    /// Disconnects and frees the stream and gives its connection back
    /// (without any engine's lock, never on the mainloop thread): after this
    /// no renderer call is made. The connection closes with its last stream.
    func close() {
        lock()
        if closed { unlock(); return }
        closed = true
        renderer = nil
        failureHandler = nil
        if let kickEvent { loop.api.pointee.io_free(kickEvent) }
        kickEvent = nil
        for op in awaited {
            if pa_operation_get_state(op) == PA_OPERATION_RUNNING { pa_operation_cancel(op) }
            pa_operation_unref(op)
        }
        awaited = []
        if let s = stream {
            pa_stream_set_state_callback(s, nil, nil)
            pa_stream_set_write_callback(s, nil, nil)
            pa_stream_set_latency_update_callback(s, nil, nil)
            pa_stream_set_underflow_callback(s, nil, nil)
            pa_stream_set_moved_callback(s, nil, nil)
            pa_stream_disconnect(s)
            pa_stream_unref(s)
        }
        stream = nil
        connection.leave(self)
        unlock()
        connection.release()
        shared.withLock {
            $0.kickClosed = true
            Glibc.close(kickFD)
        }
    }

    // MARK: On the mainloop thread

    /// Names the stream's sink now (`pa_stream_get_device_name`) and asks
    /// for its description (`pa_context_get_sink_info_by_name`), which
    /// replaces the name when it comes: "Built-in Audio Analog Stereo", as
    /// OpenAL Soft names its device. Returns the lookup (to wait on and
    /// unref), nil when it could not be sent.
    private func describeSink(of s: OpaquePointer) -> OpaquePointer? {
        let sink = pa_stream_get_device_name(s).map { String(cString: $0) } ?? "unknown sink"
        shared.withLock { $0.sinkName = sink }
        return pa_context_get_sink_info_by_name(context, sink, { _, info, _, me in
            PulseStream.from(me).sinkDescribed(info?.pointee)
        }, selfPointer)
    }

    /// What the server granted (`pa_stream_get_buffer_attr`): at connect,
    /// and again after a move (the new sink may grant otherwise).
    private func recordGranted(_ s: OpaquePointer) {
        guard let a = pa_stream_get_buffer_attr(s)?.pointee else { return }
        let granted = Request(tlength: Int(a.tlength) / Self.frameBytes, minreq: Int(a.minreq) / Self.frameBytes,
                              prebuf: Int(a.prebuf) / Self.frameBytes)
        shared.withLock { $0.granted = granted }
        recordDrainedStart()
    }

    /// How long a write onto the drained stream waits for the sink: nothing
    /// on PulseAudio, which rewinds the sink to play it at once; on PipeWire,
    /// which does not, up to the graph's next cycle — one quantum, which
    /// pipewire-pulse grants as `minreq` (figure 12: the bench's own write
    /// onto a drained stream reached the sink 2.2 ms later, median, at 128 frames).
    private func recordDrainedStart() {
        let rate = UInt64(rate), onPipeWire = onPipeWire
        shared.withLock { s in
            s.playout.drainedStartMicros = onPipeWire ? UInt64(s.granted?.minreq ?? 0) * 1_000_000 / rate : 0
        }
    }

    private func sinkDescribed(_ info: pa_sink_info?) {
        // A reply about a sink the stream has left since (moved twice) names nothing.
        if let info, let stream, let now = pa_stream_get_device_name(stream), strcmp(info.name, now) == 0,
           let description = info.description.map({ String(cString: $0) }), !description.isEmpty {
            shared.withLock { $0.sinkName = description }
        }
        signal()
    }

    /// The server moved the stream to another sink: on PipeWire the session
    /// manager does when a sink appears after the stream opened on the
    /// placeholder ("Dummy Output") pipewire-pulse offers while there is
    /// none, or when the default sink changes; on PulseAudio a user's
    /// `pactl move-sink-input`, or the rescue of streams from a removed sink.
    /// The stream plays on there as it is; its sink's name changes, and
    /// perhaps what the sink grants.
    private func moved() {
        guard let stream, !closed else { return }
        recordGranted(stream)
        if let op = describeSink(of: stream) { keepUntilAnswered(op) }
    }

    /// The stream's own state: it fails alone when its sink input is
    /// killed, or with the connection (which also tells `connectionFailed`).
    private func stateChanged() {
        if let stream, [PA_STREAM_FAILED, PA_STREAM_TERMINATED].contains(pa_stream_get_state(stream)) { failed(loop.lastError) }
        signal()
    }

    /// The connection's context failed (the server went away): every
    /// stream on it is told, from the connection's state callback.
    func connectionFailed(_ reason: String) {
        failed(reason)
    }

    /// Records the failure and tells the engine, once.
    private func failed(_ reason: String) {
        let first = shared.withLock { shared -> Bool in
            let first = !shared.failed
            shared.failed = true
            shared.failure = shared.failure ?? reason
            connected.store(false, ordering: .releasing)
            return first
        }
        writing = false
        if first, !closed { failureHandler?() }
    }

    /// A play's kick: render a first block and write it, then uncork.
    private func kicked() {
        var count: UInt64 = 0
        _ = read(kickFD, &count, 8)
        shared.withLock { $0.kicksPending = 0 }
        guard let stream, !closed, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
        let wasWriting = writing
        writing = true
        let room = pa_stream_writable_size(stream)
        let roomFrames = room < 0 ? 0 : room / Self.frameBytes
        // Idle: the stream has run dry, and a first write plays at once
        // whatever its length, so write a whole buffer ahead. While writing:
        // only the room the server has asked for (the new voice is mixed
        // from the next frame rendered; what is written stays ahead).
        let frames = wasWriting ? roomFrames : min(max(roomFrames, request.minreq), request.tlength)
        // The playing buffer again before the write (a relaxed stream's room is the idle buffer's: capped above).
        relax(false)
        if frames > 0 { fill(stream, frames: frames) }
        // Written before the uncork, so the data is there when it plays.
        corkLocked(false)
    }

    /// The server asked for `bytes` more: render them while a sound plays.
    private func requested(_ bytes: Int) {
        guard writing, let stream, !closed else { return }
        fill(stream, frames: bytes / Self.frameBytes)
    }

    /// Renders up to `frames` into the stream's own buffers
    /// (`pa_stream_begin_write`, `pa_stream_write`); stops after the block
    /// in which the last voice ended (its tail is then written).
    private func fill(_ s: OpaquePointer, frames: Int) {
        var left = frames
        var written = 0
        while left > 0, writing, let renderer {
            var data: UnsafeMutableRawPointer?
            var bytes = left * Self.frameBytes
            guard pa_stream_begin_write(s, &data, &bytes) == 0, let data, bytes >= Self.frameBytes else { break }
            let n = min(bytes / Self.frameBytes, left)
            // Counted before the render, which may tell a voice's end: whoever
            // then asks `untilHeardNanoseconds` counts this block in.
            let now = EventLoop.monotonicNow()
            shared.withLock { [rate] in $0.playout.write(frames: n, rate: rate, now: now) }
            let more = renderer(data.assumingMemoryBound(to: Float.self), n)
            guard pa_stream_write(s, data, n * Self.frameBytes, nil, 0, PA_SEEK_RELATIVE) == 0 else {
                pa_stream_cancel_write(s)
                break
            }
            written += n * Self.frameBytes
            left -= n
            if !more { writing = false }
        }
        if written > 0 {
            shared.withLock { $0.bytesWritten += UInt64(written) }
            askTiming(s)
        }
    }

    /// Asks the server for the stream's timing (its latency, for
    /// `latencyNanoseconds`) while a sound is written: at its first write,
    /// then at most every `timingIntervalMicros`, one request at a time.
    /// libpulse's automatic updates would wake the mainloop all day, idle too.
    private func askTiming(_ s: OpaquePointer) {
        let now = EventLoop.monotonicNow()
        guard !timingAsked, timingAskedAt == 0 || now - timingAskedAt >= Self.timingIntervalMicros else { return }
        timingAsked = true
        timingAskedAt = now
        if let op = pa_stream_update_timing_info(s, { _, _, me in PulseStream.from(me).timingAnswered() }, selfPointer) {
            keepUntilAnswered(op)
        } else {
            timingAsked = false
        }
    }

    static let timingIntervalMicros: UInt64 = 250_000

    private func timingAnswered() {
        timingAsked = false
        latencyUpdated()
    }

    private func latencyUpdated() {
        guard let stream else { return }
        var usec: pa_usec_t = 0
        var negative: Int32 = 0
        guard pa_stream_get_latency(stream, &usec, &negative) == 0 else { return }
        let ns = negative != 0 ? 0 : usec * 1000
        let sink = pa_stream_get_timing_info(stream).map { $0.pointee.sink_usec } ?? 0
        shared.withLock {
            $0.latencyNs = ns
            $0.playout.sinkMicros = sink
        }
    }

    private func drained(_ success: Bool) {
        drainAnswer = success
        signal()
    }

    private func underflowed() {
        // After a tail the stream runs dry on purpose; only an underflow
        // while writing is a gap in a sound.
        if writing { shared.withLock { $0.underflows += 1 } }
    }

    // MARK: Helpers

    /// Keeps `op` until it is answered or the stream closes (`awaited`);
    /// lets go of those answered since (mainloop lock held).
    private func keepUntilAnswered(_ op: OpaquePointer) {
        awaited.removeAll { done in
            guard pa_operation_get_state(done) != PA_OPERATION_RUNNING else { return false }
            pa_operation_unref(done)
            return true
        }
        awaited.append(op)
    }

    private func lock() { loop.lock() }
    private func unlock() { loop.unlock() }
    private func signal() { loop.signal() }
}
