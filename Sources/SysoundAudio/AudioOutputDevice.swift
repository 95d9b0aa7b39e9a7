import Glibc
import SysoundCore
import SysoundPlatform

/// Where an engine's mix goes. Three shapes, one file each: OpenAL Soft's own
/// device (`OpenALDeviceOutput`), a loopback device the engine renders itself
/// for `--to FILE` and the tests (`LoopbackOutput`), and a loopback device
/// whose mix sysound's own PulseAudio stream plays (`StreamOutput`). The
/// engine's sources live in the output's context (`al`).
///
/// Each output says what it is and does — who mixes, how its loss is told,
/// what a pause means, how its timing is known, what a play must wake — so
/// the engine never asks which of the three it has.
///
/// Callers hold the engine's lock around every member but the device calls `pause()`,
/// `resume()`, `close()`, `prime()` and `start(for:)`, which may wait for the
/// sound server or take the stream's lock (before the engine's).
/// Outputs move to workers for those calls, hence Sendable.
protocol AudioOutputDevice: AnyObject, Sendable {
    /// The ALC device and context the engine's sources play in.
    var al: ALDeviceContext { get }
    /// What the output plays on now, for people (the log, `sysound status`).
    var name: String { get }
    /// What the output is, for the log line at open (after its name).
    var summary: String { get }
    /// False once the output is gone for good (the device unplugged, the
    /// stream's server gone): the engine reopens.
    var isConnected: Bool { get }

    // MARK: Who mixes

    /// Who mixes, and so who notices a voice's end and moves the ramps.
    var whoMixes: OutputMixer { get }
    /// The loopback device a caller of `AudioEngine.render(frames:)` pulls
    /// the mix from, when the output plays nowhere by itself; nil where a
    /// thread of the output's own plays it.
    var mixForCaller: LoopbackOutput? { get }
    /// Hands the output what it tells the engine: the own stream renders the
    /// engine's mix and tells its failure; OpenAL Soft's device tells its
    /// disconnect event; a loopback tells nothing. Without the engine's lock, before
    /// the output is attached.
    func start(for engine: AudioEngine)
    /// Runs the output's render path once after it is attached, so that the
    /// first sound's does not run it cold (the own stream); nothing elsewhere.
    /// Without the engine's lock.
    func prime()
    /// The thread that writes the mix only while something plays and that a
    /// play wakes (the own stream's mainloop thread); nil where a mixer runs
    /// all the time or a caller pulls the mix.
    var writer: (any MixWriter)? { get }
    /// Whether the writer's last render said more is to come: a voice
    /// started now is mixed into its next block without a kick.
    var isWriting: Bool { get }

    // MARK: Timing

    /// Whether the output keeps its timing figures, so that asking them
    /// costs no wait (the own stream's timing updates; a loopback's are 0);
    /// else asking waits on the device's backend lock, which a pause holds,
    /// and the engine's monitor reads the latency between device calls
    /// (OpenAL Soft's device).
    var keepsTiming: Bool { get }
    /// How long a frame mixed now takes to reach the speaker, in ns; 0 when
    /// the output cannot tell.
    func latencyNanoseconds() -> UInt64
    /// How long until what the output was given has been heard, in ns: what
    /// the own stream wrote ahead and the sink's latency (`PlayoutClock`);
    /// OpenAL Soft's device's latency; 0 on a loopback.
    func untilHeardNanoseconds() -> UInt64
    /// Blocks until the sound server has played everything the output was
    /// given (the own stream's `pa_stream_drain`), at most `timeoutSeconds`;
    /// true when it said so, or when the output holds nothing (a loopback).
    /// False where the output cannot tell (OpenAL Soft's device): the caller
    /// then waits by the latency. Without the engine's lock; a process about to close
    /// its output calls it.
    func drain(timeoutSeconds: Double) -> Bool

    // MARK: Loss

    /// Whether the output has told its own loss, a device call in flight or
    /// not (the own stream's failure, recorded as it happens): a play and
    /// `AudioEngine.isConnected` believe it at once. False where only
    /// ALC_CONNECTED says so, read while no device call is in flight.
    var hasToldLoss: Bool { get }
    /// Whether only reading ALC_CONNECTED finds the output's loss (OpenAL
    /// Soft's device without its disconnect event): the monitor watches it
    /// while a voice with no end to foresee holds the device.
    var lossIsWatched: Bool { get }
    /// What outlives the output's loss: the own stream's mix, sources and
    /// buffers need no server, so only its stream is made again; nil where
    /// the loss ends the whole output, which is opened again.
    var reconnection: (any ReconnectingOutput)? { get }

    // MARK: Pause

    /// Whether `pause()` does anything.
    var canPause: Bool { get }
    /// Whether a play ends a pause by itself (a cork, which the own stream's
    /// kick undoes as it writes), or a worker must `resume()` the output.
    var playEndsPause: Bool { get }
    /// Stops the output's mixing while nothing plays; sources keep their
    /// state. The device must stay open meanwhile.
    func pause()
    /// Starts the mixing again after `pause()`. Returns the audio threads
    /// it started, for `promoteResumed`.
    func resume() -> [pid_t]
    /// Makes the threads a resume started real-time, if the output was
    /// opened so: after the resume is done, since asking rtkit may wait for the bus.
    func promoteResumed(_ threads: [pid_t])

    // MARK: Facts

    /// The own stream's counters and grant, for `sysound status`, the tests
    /// and the bench; nil for an output without one.
    var streamFacts: StreamFacts? { get }

    /// Closes the output (the stream first, so that it renders no more).
    /// Without the engine's lock, after `releaseCurrent()`.
    func close()
}

/// Who mixes an output's sound.
enum OutputMixer: Equatable {
    /// The engine renders the mix (OpenAL Soft's loopback device) — on the
    /// own stream's thread, or on the caller's — and ticks with the time it
    /// rendered: it notices voices' ends and moves the ramps as it renders.
    case engine
    /// The device's own mixer thread (OpenAL Soft's), which tells no voice's
    /// end: the monitor foresees ends and ticks with the monotonic clock.
    case device
}

/// A thread that writes an output's mix only while something plays: a play
/// that finds it drained wakes it (one eventfd write, never a wait, safe
/// under an engine's lock).
protocol MixWriter: AnyObject, Sendable {
    func kick()
}

/// An output whose mix, sources and buffers outlive the loss of its sound
/// server: only its stream is made again (on a worker) and swapped in (on
/// the loop). The own stream.
protocol ReconnectingOutput: AudioOutputDevice {
    /// Connects a new stream for this output's kept mix (a worker, without
    /// the engine's lock: it waits for the server).
    func connectAgain(_ s: AudioSettings, role: MediaRole, realtime: RealtimeThreads?) throws(AudioError) -> PulseStream
    /// Has `stream` render this output's mix for `engine` and tell its loss,
    /// before it replaces the lost one (without the engine's lock).
    func connect(_ stream: PulseStream, to engine: AudioEngine)
    /// Plays on `new` from now on (the engine's lock held, no device call in flight);
    /// returns the lost stream, for the caller to close off the lock.
    func replaceStream(_ new: PulseStream) -> PulseStream
}

extension AudioOutputDevice {
    /// The ALCcontext the engine's sources and buffers belong to.
    var context: OpaquePointer { al.context }
    var frequency: Int { al.frequency }
    var refresh: Int { al.refresh }
    var maxSources: Int { al.maxSources }
    /// Makes the output's context current on this thread unless it already
    /// is (the engine's lock held; `locked` puts back what was).
    func makeCurrent() { al.makeCurrent() }
    /// Makes no context current on this thread if the output's is (the
    /// engine's lock held): before `close()`.
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
        // Its stream, if it made one, is the one made ahead or holds its connection.
        defer { PulseStream.releaseAhead() }
        switch s.backend {
        case .openal: return try OpenALDeviceOutput.open(s, realtime: realtime)
        case .pulse: return try StreamOutput.open(s, role: role, realtime: realtime)
        case .auto:
            if (server ?? SoundServerProbe.ask()) == .absent { return try OpenALDeviceOutput.open(s, realtime: realtime) }
            do { return try StreamOutput.open(s, role: role, realtime: realtime) } catch {
                // Without OpenAL Soft's backends the stream's own failure is the answer.
                if case .pulse = error, !AudioProcess.openALMixesOnly { return try OpenALDeviceOutput.open(s, realtime: realtime) }
                throw error
            }
        }
    }

    /// Whether `openDevice` would surely open sysound's own stream, given
    /// what the server answered: the `pulse` backend, or `auto` with a
    /// server that answers (`unknown` and `silent` may still end on OpenAL
    /// Soft's device).
    static func opensOwnStream(_ s: AudioSettings, server: SoundServerProbe.Answer) -> Bool {
        switch s.backend {
        case .pulse: true
        case .auto: server == .answers
        case .openal: false
        }
    }
}
