import Glibc
import SysoundCore
import SysoundPlatform

/// Where an engine's mix goes. Three shapes, one file each: OpenAL Soft's own
/// device (`OpenALDeviceOutput`), a loopback device the engine renders itself
/// for `--to FILE` and the tests (`LoopbackOutput`), and a loopback device
/// whose mix sysound's own PulseAudio stream plays (`StreamOutput`). The
/// engine's sources live in the output's context (`al`).
///
/// Callers hold `ALLock` around every member but the device calls `pause()`,
/// `resume()` and `close()`, which may wait for the sound server.
/// Outputs move to workers for those calls, hence Sendable.
protocol AudioOutputDevice: AnyObject, Sendable {
    /// The ALC device and context the engine's sources play in.
    var al: ALDeviceContext { get }
    /// What the output plays on now, for people (the log, `sysound status`).
    var name: String { get }
    /// False once the output is gone for good (the device unplugged, the
    /// stream's server gone): the engine reopens.
    var isConnected: Bool { get }
    /// How long a frame mixed now takes to reach the speaker, in ns; 0 when
    /// the output cannot tell.
    func latencyNanoseconds() -> UInt64
    /// Whether `pause()` does anything.
    var canPause: Bool { get }
    /// Stops the output's mixing while nothing plays; sources keep their
    /// state. The device must stay open meanwhile.
    func pause()
    /// Starts the mixing again after `pause()`. Returns the audio threads
    /// it started, for `promoteResumed`.
    func resume() -> [pid_t]
    /// Makes the threads a resume started real-time, if the output was
    /// opened so: after the resume is done, since asking rtkit may wait for the bus.
    func promoteResumed(_ threads: [pid_t])
    /// sysound's own PulseAudio stream, when the output is one: it renders
    /// the mix itself, while the engine ticks its own clock otherwise.
    var ownStream: PulseStream? { get }
    /// Closes the output (the stream first, so that it renders no more).
    /// Without `ALLock`, after `releaseCurrent()`.
    func close()
}

extension AudioOutputDevice {
    /// The ALCcontext the engine's sources and buffers belong to.
    var context: OpaquePointer { al.context }
    var frequency: Int { al.frequency }
    var refresh: Int { al.refresh }
    var maxSources: Int { al.maxSources }
    /// Makes the output's context current unless it already is (`ALLock` held).
    func makeCurrent() { al.makeCurrent() }
    /// Makes no context current if the output's is (`ALLock` held): before `close()`.
    func releaseCurrent() { al.releaseCurrent() }
}

/// The choice among the device outputs that `[audio] backend` names.
enum AudioOutputs {
    /// Opens the output `s.backend` names for a device engine: sysound's own
    /// PulseAudio stream, or OpenAL Soft's default device; `auto` takes the
    /// stream when a PulseAudio-protocol server answers and OpenAL Soft's
    /// device otherwise (a machine with ALSA only).
    /// `realtime` makes the output's audio threads real-time: OpenAL Soft's,
    /// or the stream's one mainloop thread. `server` is the sound server's
    /// answer when the caller asked it just now (ServiceSetup); nil asks
    /// here, for `auto` only. `role` is the own stream's `media.role`;
    /// OpenAL Soft's device has none (its stream is OpenAL Soft's).
    static func openDevice(
        _ s: AudioSettings, role: MediaRole = .event, realtime: RealtimeThreads?, server: SoundServerProbe.Answer? = nil
    ) throws(AudioError) -> any AudioOutputDevice {
        // One open at a time in the process, a reopen after a loss included:
        // an open finds the threads it started in the process's thread list.
        AudioThreads.opens.lock()
        defer { AudioThreads.opens.unlock() }
        switch s.backend {
        case .openal: return try OpenALDeviceOutput.open(s, realtime: realtime)
        case .pulse: return try StreamOutput.open(s, role: role, realtime: realtime)
        case .auto:
            if (server ?? SoundServerProbe.ask()) == .absent { return try OpenALDeviceOutput.open(s, realtime: realtime) }
            do { return try StreamOutput.open(s, role: role, realtime: realtime) } catch {
                if case .pulse = error { return try OpenALDeviceOutput.open(s, realtime: realtime) }
                throw error
            }
        }
    }
}
