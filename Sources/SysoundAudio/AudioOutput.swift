/// Where the engine's mix goes.
package enum AudioOutput: Sendable, Equatable {
    /// The default output device (`alcOpenDevice(NULL)`).
    case device
    /// An in-process loopback device (ALC_SOFT_loopback): stereo float32 at the
    /// settings' sample rate, pulled with `render(frames:)`. Tests and `--to FILE`.
    case loopback
}
