/// A sound decoded to float32 PCM and kept in memory, so AL buffers can be
/// rebuilt after a device loss without reading the file again.
public struct DecodedClip: Sendable, Equatable {
    /// The file it came from (for messages).
    public var path: String
    /// Interleaved samples, `frames × channels`, nominally in −1…1.
    public var samples: [Float]
    /// 1 (mono) or 2 (stereo).
    public var channels: Int
    /// Frames per second of the file.
    public var sampleRate: Int

    public init(path: String, samples: [Float], channels: Int, sampleRate: Int) {
        self.path = path
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }

    public var frames: Int { channels > 0 ? samples.count / channels : 0 }
    public var seconds: Double { Double(frames) / Double(sampleRate) }
    /// Memory held by the samples.
    public var byteCount: Int { samples.count * MemoryLayout<Float>.size }
}
