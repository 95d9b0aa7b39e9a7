import SysoundCore

/// Everything the audio layer can refuse or fail at. Messages name the file or
/// the device and say what to do; the CLI prints `description` as is.
package enum AudioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `alcOpenDevice(NULL)` returned no device: there is no sound output at all.
    case noOutputDevice(detail: String)
    /// The device was lost and has not come back yet; the engine keeps retrying.
    case deviceUnavailable
    /// An OpenAL call failed (context creation, buffers, sources).
    case openAL(operation: String, code: Int32)
    /// A required OpenAL extension is missing (e.g. ALC_SOFT_loopback).
    case missingExtension(String)
    /// The file cannot be used as a sound; `reason` says why, `path` which.
    case badFile(path: String, reason: String)
    /// The clip is longer than the configured maximum.
    case clipTooLong(path: String, seconds: Double, maximum: Double)
    /// Decoding this clip would exceed the total PCM budget.
    case preloadBudgetExceeded(path: String, bytes: Int, budget: Int)
    /// No preloaded clip has this name.
    case unknownClip(String)
    /// The clip was evicted from the ad-hoc cache (or the engine was rebuilt): fetch it again.
    case clipNotLoaded(String)
    /// Writing a rendered file failed.
    case writeFailed(path: String, reason: String)
    /// An operation that needs the loopback output on a device engine, or vice versa.
    case wrongOutput(String)
    /// A libpulse call of the engine's own PulseAudio stream failed (`output = "pulse"`).
    case pulse(operation: String, reason: String)

    /// The file the failure is about, as the caller named it, if it is about one.
    package var file: String? {
        switch self {
        case .badFile(let path, _), .clipTooLong(let path, _, _), .preloadBudgetExceeded(let path, _, _), .writeFailed(let path, _): path
        case .noOutputDevice, .deviceUnavailable, .openAL, .missingExtension, .unknownClip, .clipNotLoaded, .wrongOutput, .pulse: nil
        }
    }

    package var description: String {
        switch self {
        case .noOutputDevice(let detail):
            return "no audio output device could be opened (\(detail)); connect or enable a sound device, start PulseAudio/PipeWire, or render to a file with --to FILE"
        case .deviceUnavailable:
            return "the audio output device went away and has not come back yet; the engine is retrying"
        case .openAL(let op, let code):
            return "OpenAL \(op) failed (error 0x\(String(code, radix: 16)))"
        case .missingExtension(let ext):
            return "this OpenAL implementation lacks \(ext); install OpenAL Soft 1.19 or later"
        case .badFile(let path, let reason):
            return "\(path): \(reason)"
        case .clipTooLong(let path, let seconds, let maximum):
            return "\(path): the sound lasts \(Self.format(seconds)) s, longer than the maximum of \(Self.format(maximum)) s for a sound; shorten it or raise the maximum clip length"
        case .preloadBudgetExceeded(let path, let bytes, let budget):
            return "\(path): decoding it would bring the preloaded audio to \(bytes) bytes, over the budget of \(budget) bytes; use shorter or fewer sounds, or raise the preload budget"
        case .unknownClip(let name):
            return "no sound named \(ControlValue.quoted(name)) is loaded"
        case .clipNotLoaded(let name):
            return "the sound \(ControlValue.quoted(name)) is no longer loaded (evicted from the cache, or dropped from the theme); load it again"
        case .writeFailed(let path, let reason):
            return "\(path): cannot write the rendered audio: \(reason)"
        case .wrongOutput(let what):
            return what
        case .pulse(let op, let reason):
            return "the PulseAudio stream could not be set up: \(op) failed (\(reason)); start PulseAudio or PipeWire, or set output = \"openal\" in [audio]"
        }
    }

    static func format(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
