import COpenAL
import Glibc
import SysoundCore
import SysoundPlatform

/// A loopback device (ALC_SOFT_loopback): nothing plays by itself; whoever
/// holds it renders the mix (`render`). The engine renders it for `--to FILE`
/// and the tests; `StreamOutput` feeds sysound's own PulseAudio stream from one.
/// @unchecked Sendable: it moves to workers to be closed; everything else
/// about it is used under its engine's lock.
final class LoopbackOutput: AudioOutputDevice, @unchecked Sendable {
    let al: ALDeviceContext
    private let functions: LoopbackFunctions

    private init(_ al: ALDeviceContext, functions: LoopbackFunctions) {
        self.al = al
        self.functions = functions
    }

    /// Opens a loopback device rendering stereo float32 at the settings' rate
    /// (alcLoopbackOpenDeviceSOFT, alcIsRenderFormatSupportedSOFT).
    static func open(_ s: AudioSettings) throws(AudioError) -> LoopbackOutput {
        let fns = try LoopbackFunctions.load()
        guard let dev = fns.open(nil) else {
            throw .openAL(operation: "alcLoopbackOpenDeviceSOFT", code: alcGetError(nil))
        }
        guard fns.isFormatSupported(dev, ALCsizei(s.sampleRate), ALC_STEREO_SOFT, ALC_FLOAT_SOFT) != 0 else {
            alcCloseDevice(dev)
            throw .missingExtension("loopback rendering of stereo float32 at \(s.sampleRate) Hz")
        }
        var attrs = ALDeviceContext.attributes(s)
        attrs += [ALC_FORMAT_CHANNELS_SOFT, ALC_STEREO_SOFT, ALC_FORMAT_TYPE_SOFT, ALC_FLOAT_SOFT, 0]
        return LoopbackOutput(try ALDeviceContext.create(on: dev, attrs, what: "the loopback device"), functions: fns)
    }

    /// Mixes `frames` stereo float frames into `out` (alcRenderSamplesSOFT,
    /// which takes OpenAL Soft's list lock: `OpenALListLock`).
    func render(into out: UnsafeMutablePointer<Float>, frames: Int) {
        OpenALListLock.around { functions.render(al.device, out, ALCsizei(frames)) }
    }

    var name: String { al.name }
    var summary: String { al.grantedSummary }
    var isConnected: Bool { al.isConnected }

    /// The engine renders it, on the caller's thread (`AudioEngine.render(frames:)`).
    var whoMixes: OutputMixer { .engine }
    var mixForCaller: LoopbackOutput? { self }
    func start(for engine: AudioEngine) {}
    func prime() {}
    var writer: (any MixWriter)? { nil }
    var isWriting: Bool { false }

    /// Nothing is played, so nothing is late.
    var keepsTiming: Bool { true }
    func latencyNanoseconds() -> UInt64 { 0 }
    func untilHeardNanoseconds() -> UInt64 { 0 }
    /// Nothing is held anywhere: whatever was rendered is all there is.
    func drain(timeoutSeconds: Double) -> Bool { true }

    /// Nothing is played, so nothing can be lost.
    var hasToldLoss: Bool { false }
    var lossIsWatched: Bool { false }
    var reconnection: (any ReconnectingOutput)? { nil }

    /// Nothing mixes unless rendered: there is nothing to pause.
    var canPause: Bool { false }
    var playEndsPause: Bool { false }
    func pause() {}
    func resume() -> [pid_t] { [] }
    func promoteResumed(_ threads: [pid_t]) {}

    var streamFacts: StreamFacts? { nil }
    func close() { al.close() }
}

extension LoopbackOutput {
    /// Starts opening the loopback device for `settings` on a thread of its
    /// own (`sysound-mixer`), for the first `StreamOutput.open` to take.
    ///
    /// Called as soon as a process knows that its output will be the own
    /// stream (`AudioProcess.openAhead`): OpenAL Soft's context is 5–6 ms of
    /// page faults here (it zeroes 7.8 MB of voices), and in a daemon its
    /// first call also tries the server with each backend it may use. A
    /// device nobody takes (an unknown sound, a silenced one) is closed at
    /// exit, after its thread has finished (`AudioProcess.closeAtExit`).
    package static func openAhead(_ settings: AudioSettings) {
        ahead.withLock { ahead in
            guard ahead == nil else { return }
            // No thread to be had: nothing is opened ahead, the first open makes its own.
            guard let work = ThreadedWork(name: "sysound-mixer", { try? LoopbackOutput.open(settings) }) else { return }
            ahead = (settings, work)
        }
        _ = closesAheadAtExit
    }

    private static let closesAheadAtExit: Void = AudioProcess.closeAtExit { LoopbackOutput.takeAhead()?.work.wait()?.close() }

    /// The device `openAhead` opened, once it is open, if it is the one
    /// `settings` ask for (rate, voices); else one opened now (`open`), which
    /// also tells why the one ahead failed, if it did.
    static func openAheadOrNow(_ settings: AudioSettings) throws(AudioError) -> LoopbackOutput {
        if let ahead = openedAhead(settings) { return ahead }
        return try open(settings)
    }

    /// Nil when none was started, it was taken already, or it failed.
    static func openedAhead(_ settings: AudioSettings) -> LoopbackOutput? {
        guard let (aheadSettings, work) = takeAhead() else { return nil }
        let output = work.wait()
        guard ALDeviceContext.attributes(aheadSettings) == ALDeviceContext.attributes(settings) else {
            output?.close()
            return nil
        }
        return output
    }

    private static func takeAhead() -> (settings: AudioSettings, work: ThreadedWork<LoopbackOutput?>)? {
        ahead.withLock { ahead in
            defer { ahead = nil }
            return ahead
        }
    }

    /// The device being opened ahead, and for which settings; nil once taken.
    private static let ahead = Locked<(settings: AudioSettings, work: ThreadedWork<LoopbackOutput?>)?>(nil)
}
