import COpenAL

/// A sound ready to play: its decoded PCM (kept for re-upload after a device
/// loss) and the AL buffer made from it. Obtained from `AudioEngine.preload`,
/// `clip(named:)` or `clip(forFile:)`; the engine's lock guards the mutable parts.
public final class Clip: @unchecked Sendable, CustomStringConvertible {
    /// The theme name, or the file path for ad-hoc clips.
    public let name: String
    /// The theme's relative gain for this sound (for the policy's final gain).
    public let gain: Double
    public let pcm: DecodedClip

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

    init(name: String, gain: Double, pcm: DecodedClip) {
        self.name = name
        self.gain = gain
        self.pcm = pcm
    }

    /// Length in seconds at the file's own rate.
    public var duration: Double { pcm.seconds }
    public var description: String { "\(name) (\(pcm.channels) ch, \(pcm.sampleRate) Hz, \(pcm.frames) frames)" }
}
