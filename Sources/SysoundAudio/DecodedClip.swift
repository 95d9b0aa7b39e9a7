import COpenAL

/// A sound decoded to float32 PCM, for callers that analyse samples (the
/// benchmark, tests). The engine keeps no such copy: its clips hold their
/// PCM only in the AL buffer, in the file's own sample format (`ClipFormat`).
package struct DecodedClip: Sendable, Equatable {
    /// The file it came from (for messages).
    package var path: String
    /// Interleaved samples, `frames × channels`, nominally in −1…1.
    package var samples: [Float]
    /// 1 (mono) or 2 (stereo).
    package var channels: Int
    /// Frames per second of the file.
    package var sampleRate: Int

    package init(path: String, samples: [Float], channels: Int, sampleRate: Int) {
        self.path = path
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }

    package var frames: Int { channels > 0 ? samples.count / channels : 0 }
    package var seconds: Double { Double(frames) / Double(sampleRate) }
    /// Memory held by the samples.
    package var byteCount: Int { samples.count * MemoryLayout<Float>.size }
}

/// What a clip's AL buffer holds, kept instead of the PCM itself: enough to
/// account for the memory, describe the clip and decode the file again when a
/// device must be reopened.
package struct ClipFormat: Sendable, Equatable {
    /// How each sample is stored: as the file holds it where OpenAL takes
    /// that (16-bit integer), else float32 (AL_EXT_FLOAT32).
    package enum Sample: Sendable, Equatable {
        case int16, float32

        package var bytes: Int { self == .int16 ? 2 : 4 }
    }

    /// The file it came from (decoded again after a device loss).
    package var path: String
    package var sample: Sample
    /// 1 (mono, centred by the source) or 2 (stereo).
    package var channels: Int
    /// Frames per second of the file.
    package var sampleRate: Int
    package var frames: Int

    package init(path: String, sample: Sample, channels: Int, sampleRate: Int, frames: Int) {
        self.path = path
        self.sample = sample
        self.channels = channels
        self.sampleRate = sampleRate
        self.frames = frames
    }

    package var bytesPerFrame: Int { channels * sample.bytes }
    /// Bytes the AL buffer holds: what the budgets count.
    package var byteCount: Int { frames * bytesPerFrame }
    package var seconds: Double { Double(frames) / Double(sampleRate) }

    /// The alBufferData format.
    var alFormat: ALenum {
        switch (sample, channels) {
        case (.int16, 1): AL_FORMAT_MONO16
        case (.int16, _): AL_FORMAT_STEREO16
        case (.float32, 1): AL_FORMAT_MONO_FLOAT32
        case (.float32, _): AL_FORMAT_STEREO_FLOAT32
        }
    }

    /// Whether a new decode of the file may stand in for this one in its
    /// buffer: the same layout and length, so the byte counts stay right.
    func sameLayout(as other: ClipFormat) -> Bool {
        sample == other.sample && channels == other.channels && sampleRate == other.sampleRate && frames == other.frames
    }
}
