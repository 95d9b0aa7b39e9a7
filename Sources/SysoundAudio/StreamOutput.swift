import Foundation
import Glibc
import SysoundCore
import SysoundPlatform

/// A loopback device whose mix sysound's own PulseAudio stream renders and
/// writes, only while something plays (docs/architecture.md, "The audio
/// engine"): the device operations (pause, resume, connected, latency,
/// close) act on the stream. @unchecked Sendable: it moves to workers for
/// its device calls; everything else about it is used under `ALLock`.
final class StreamOutput: AudioOutputDevice, @unchecked Sendable {
    /// The loopback device OpenAL Soft mixes into; the stream renders it.
    let mixer: LoopbackOutput
    /// Replaced by `replaceStream` after the server's loss: the mix, its
    /// sources and the clips' buffers stay (the loopback device needs no
    /// server). Read under `ALLock`, or by a device call on a worker, which
    /// the engine never runs during a replacement.
    private(set) var stream: PulseStream
    /// Whether the stream's last render said more is to come (`ALLock`
    /// held): it then renders again when the server asks, and a voice
    /// started now is mixed into that block. Only a stream that has stopped
    /// writing needs a play's kick.
    var rendering = false

    private init(mixer: LoopbackOutput, stream: PulseStream) {
        self.mixer = mixer
        self.stream = stream
    }

    /// Opens the loopback device, then the stream, whose `media.role` is
    /// `role`. `realtime` makes the stream's one mainloop thread real-time.
    static func open(_ s: AudioSettings, role: MediaRole = .event, realtime: RealtimeThreads?) throws(AudioError) -> StreamOutput {
        let mixer = try LoopbackOutput.open(s)
        do { return StreamOutput(mixer: mixer, stream: try connectStream(s, role: role, realtime: realtime)) } catch {
            mixer.close()
            throw error
        }
    }

    /// Connects a stream to the server (and makes its thread real-time):
    /// half of `open`, and all of a reconnection after the server's loss.
    static func connectStream(_ s: AudioSettings, role: MediaRole, realtime: RealtimeThreads?) throws(AudioError) -> PulseStream {
        let stream = try PulseStream.connect(s, clientName: ProcessInfo.processInfo.processName, role: role)
        let tid = stream.threadID
        if tid > 0 { realtime?.promote([tid], purpose: "sysound's PulseAudio stream thread (sysound-audio), which mixes and writes") }
        return stream
    }

    /// Plays on `new` from now on (`ALLock` held, no device call in flight);
    /// returns the lost stream, for the caller to close off the lock.
    func replaceStream(_ new: PulseStream) -> PulseStream {
        let old = stream
        stream = new
        rendering = false
        return old
    }

    var al: ALDeviceContext { mixer.al }
    /// The sink the stream plays on now (the server may move it).
    var name: String { stream.sinkName }
    /// False once the stream's context or the stream failed.
    var isConnected: Bool { stream.isConnected }
    /// The stream's last timing update (`pa_stream_get_latency`), kept by
    /// the stream: asking takes no PulseAudio lock.
    func latencyNanoseconds() -> UInt64 { stream.latencyNanoseconds }
    var canPause: Bool { true }
    /// Corks the stream (it writes nothing while idle already).
    func pause() { stream.cork() }
    /// Uncorks the stream (a play's kick also does); starts no thread.
    func resume() -> [pid_t] {
        stream.uncork()
        return []
    }
    func promoteResumed(_ threads: [pid_t]) {}
    var ownStream: PulseStream? { stream }

    func close() {
        stream.close()
        mixer.close()
    }
}
