import FoundationEssentials
import Glibc
import SysoundCore
import SysoundPlatform

/// A loopback device whose mix sysound's own PulseAudio stream renders and
/// writes, only while something plays (docs/architecture.md, "The audio
/// engine"): the device operations (pause, resume, connected, latency,
/// close) act on the stream. The engine renders its mix on the stream's
/// thread; a play wakes a drained stream, and its kick ends a pause (a
/// cork); the server's loss ends only the stream. @unchecked Sendable: it
/// moves to workers for its device calls; everything else about it is used
/// under its engine's lock.
final class StreamOutput: ReconnectingOutput, @unchecked Sendable {
    /// The loopback device OpenAL Soft mixes into; the stream renders it.
    let mixer: LoopbackOutput
    /// Replaced by `replaceStream` after the server's loss: the mix, its
    /// sources and the clips' buffers stay (the loopback device needs no
    /// server). Read under the engine's lock, or by a device call on a worker, which
    /// the engine never runs during a replacement.
    private(set) var stream: PulseStream
    /// Whether the stream's last render said more is to come (the
    /// engine's lock held): it then renders again when the server asks, and a voice
    /// started now is mixed into that block. Only a stream that has stopped
    /// writing needs a play's kick.
    private var rendering = false

    private init(mixer: LoopbackOutput, stream: PulseStream) {
        self.mixer = mixer
        self.stream = stream
    }

    /// Opens the loopback device and the stream, whose `media.role` is
    /// `role`, on the process's one connection to the server
    /// (`PulseConnection`). `realtime` makes that connection's one mainloop
    /// thread real-time, once for every role's stream.
    ///
    /// The two are made side by side: the stream mostly waits for the
    /// server (the connection's handshake, the stream's creation: round
    /// trips to another process), the loopback device mostly works here
    /// (OpenAL Soft's context zeroes its 256 voices, 7.8 MB). One after the
    /// other they would add up, 3–4 ms and 6–7 ms here, on the path of every
    /// first sound: a one-shot `sysound play`'s, a role's, a new daemon's.
    static func open(_ s: AudioSettings, role: MediaRole = .event, realtime: RealtimeThreads?) throws(AudioError) -> StreamOutput {
        // No thread to be had (EAGAIN), or the stream made ahead already has
        // one (`PulseStream.connectAhead`): connected below, after the mixer.
        let connecting = PulseStream.isMadeAhead ? nil : ThreadedWork(name: "sysound-connect") { () -> Result<PulseStream, AudioError> in
            do throws(AudioError) { return .success(try connectStream(s, role: role, realtime: realtime)) } catch { return .failure(error) }
        }
        func connected() throws(AudioError) -> PulseStream {
            guard let connecting else { return try connectStream(s, role: role, realtime: realtime) }
            return try connecting.wait().get()
        }
        let mixer: LoopbackOutput
        do { mixer = try LoopbackOutput.openAheadOrNow(s) } catch {
            (try? connected())?.close()  // the mixer's error is the one to tell
            throw error
        }
        do { return StreamOutput(mixer: mixer, stream: try connected()) } catch {
            mixer.close()
            throw error
        }
    }

    /// Connects a stream to the server: half of `open`, and all of a
    /// reconnection after the server's loss (the first role's reconnection
    /// makes the connection again, the others' join it).
    private static func connectStream(_ s: AudioSettings, role: MediaRole, realtime: RealtimeThreads?) throws(AudioError) -> PulseStream {
        try PulseStream.connect(s, role: role, realtime: realtime)
    }

    func connectAgain(_ s: AudioSettings, role: MediaRole, realtime: RealtimeThreads?) throws(AudioError) -> PulseStream {
        try Self.connectStream(s, role: role, realtime: realtime)
    }

    /// The stream renders the engine's mix (`AudioEngine.renderForWriter`)
    /// on its mainloop thread, and its failure reaches the engine's monitor
    /// at once: a play in the gap is told there is no device, and the paused
    /// monitor needs no polling.
    func connect(_ stream: PulseStream, to engine: AudioEngine) {
        stream.setRenderer { [weak engine, weak self] buf, frames in
            guard let engine, let self else {
                buf.update(repeating: 0, count: frames * 2)
                return false
            }
            // `rendering` is set under the engine's lock, which a play reads it under.
            return engine.renderForWriter(self, from: self.mixer, into: buf, frames: frames) { self.rendering = $0 }
        }
        stream.setFailureHandler { [weak engine] in engine?.monitor?.outputFailed() }
    }

    func replaceStream(_ new: PulseStream) -> PulseStream {
        let old = stream
        stream = new
        rendering = false
        return old
    }

    var al: ALDeviceContext { mixer.al }
    /// The sink the stream plays on now (the server may move it).
    var name: String { stream.sinkName }
    var summary: String {
        let b = stream.granted
        return "own PulseAudio stream (media.role \(stream.role.streamName)), \(stream.rate) Hz, tlength \(b?.tlength ?? 0) / minreq \(b?.minreq ?? 0) / prebuf \(b?.prebuf ?? 0) frames"
    }
    /// False once the stream's context or the stream failed.
    var isConnected: Bool { stream.isConnected }

    var whoMixes: OutputMixer { .engine }
    /// The stream's thread pulls the mix, not a caller.
    var mixForCaller: LoopbackOutput? { nil }
    func start(for engine: AudioEngine) { connect(stream, to: engine) }
    func prime() { stream.prime() }
    var writer: (any MixWriter)? { stream }
    var isWriting: Bool { rendering }

    var keepsTiming: Bool { true }
    /// The stream's last timing update (`pa_stream_get_latency`), kept by
    /// the stream: asking takes no PulseAudio lock.
    func latencyNanoseconds() -> UInt64 { stream.latencyNanoseconds }
    func untilHeardNanoseconds() -> UInt64 { stream.untilHeardNanoseconds }
    func drain(timeoutSeconds: Double) -> Bool { stream.drain(timeoutSeconds: timeoutSeconds) }

    /// The stream's failure callback recorded it.
    var hasToldLoss: Bool { !stream.isConnected }
    var lossIsWatched: Bool { false }
    var reconnection: (any ReconnectingOutput)? { self }

    var canPause: Bool { true }
    /// A play's kick uncorks the stream as it writes.
    var playEndsPause: Bool { true }
    /// Corks the stream (it writes nothing while idle already).
    func pause() { stream.cork() }
    /// Uncorks the stream (a play's kick also does); starts no thread.
    func resume() -> [pid_t] {
        stream.uncork()
        return []
    }
    func promoteResumed(_ threads: [pid_t]) {}

    var streamFacts: StreamFacts? { stream.facts }

    func close() {
        stream.close()
        mixer.close()
    }
}
