import COpenAL

/// A sound ready to play: the AL buffer that holds its PCM (in the file's own
/// sample format and channels) and what is needed to describe it, count its
/// bytes and decode its file again should a device be reopened. No copy of
/// the PCM is kept. Obtained from `AudioEngine.preload`, `clip(named:)` or
/// `clip(forFile:)`; the engine's lock guards the mutable parts.
package final class Clip: @unchecked Sendable, CustomStringConvertible {
    /// The theme name, or the file path for ad-hoc clips.
    package let name: String
    /// The theme's relative gain for this sound (for the policy's final gain).
    package let gain: Double
    package let format: ClipFormat

    /// The AL buffer, 0 while not uploaded (device lost, or evicted).
    var buffer: ALuint = 0
    /// Last use for the ad-hoc cache's LRU order.
    var lastUse: UInt64 = 0
    var evicted = false
    /// The file as it was when a theme clip was decoded: a reload whose file
    /// and gain are the same keeps this clip (and the voices playing it).
    var fileKey: ClipStore.FileKey?
    /// Replaced or removed by a reload while a voice still played it: its
    /// buffer goes when that voice ends (`AudioEngine.finish(slot:)`).
    var retired = false

    init(name: String, gain: Double, format: ClipFormat) {
        self.name = name
        self.gain = gain
        self.format = format
    }

    /// What the source's gain is multiplied by so the clip plays at its own
    /// level on both speakers. A stereo buffer goes straight to the speakers
    /// (AL_DIRECT_CHANNELS_SOFT); OpenAL Soft never plays a mono buffer
    /// direct, its panner puts a centred mono source at `monoCentreGain` on
    /// each speaker, which this undoes.
    var levelScale: Float { format.channels == 1 ? 1 / Self.monoCentreGain : 1 }

    /// The gain OpenAL Soft 1.19's stereo panner gives a mono source in front
    /// of the listener on each speaker (about −4.5 dB): its first-order stereo
    /// decoder's W and X terms, 0.5 + 0.0552305643 × √3 (Alc/panning.c
    /// `StereoCfg`, the front direction's N3D coefficients). Checked against
    /// the loopback render (LoopbackRenderTests).
    static let monoCentreGain: Float = 0.5 + 5.52305643e-2 * 1.7320508

    /// Length in seconds at the file's own rate.
    package var duration: Double { format.seconds }
    package var description: String {
        let kind = format.sample == .int16 ? "16-bit" : "float"
        return "\(name) (\(format.channels) ch, \(kind), \(format.sampleRate) Hz, \(format.frames) frames)"
    }
}
