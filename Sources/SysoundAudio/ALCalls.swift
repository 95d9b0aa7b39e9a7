import COpenAL

/// Thin wrappers over the AL buffer and source calls the engine makes. The
/// caller holds the engine's lock with its output's context current on
/// this thread (`makeCurrent()`), or a thread context of its own (`ALThreadContext`).
enum AL {
    /// Creates a buffer holding `pcm`, laid out as `format` says
    /// (alGenBuffers + alBufferData: 16-bit or float32 via AL_EXT_FLOAT32,
    /// mono or stereo). OpenAL Soft 1.19 keeps the buffer in that format.
    static func makeBuffer(_ format: ClipFormat, _ pcm: UnsafeRawBufferPointer) throws(AudioError) -> ALuint {
        _ = alGetError()
        var id: ALuint = 0
        alGenBuffers(1, &id)
        var err = alGetError()
        guard err == AL_NO_ERROR else { throw .openAL(operation: "alGenBuffers for \(format.path)", code: err) }
        alBufferData(id, format.alFormat, pcm.baseAddress, ALsizei(pcm.count), ALsizei(format.sampleRate))
        err = alGetError()
        guard err == AL_NO_ERROR else {
            alDeleteBuffers(1, &id)
            throw .openAL(operation: "alBufferData for \(format.path)", code: err)
        }
        return id
    }

    /// The bytes OpenAL holds for `buffer` (alGetBufferi AL_SIZE).
    static func bufferSize(_ buffer: ALuint) -> Int {
        var size: ALint = 0
        alGetBufferi(buffer, AL_SIZE, &size)
        return Int(size)
    }

    /// alDeleteBuffers.
    static func deleteBuffer(_ id: ALuint) {
        var id = id
        alDeleteBuffers(1, &id)
    }

    /// Creates up to `count` sources (alGenSources, one at a time so a device
    /// that gives fewer still yields what it has), set up for unspatialised
    /// playback: relative to the listener at its position, no distance
    /// attenuation, stereo channels sent straight to the speakers; a maximum
    /// gain above 1 so a mono clip's source can make up for the panner's
    /// centre level (`Clip.levelScale`).
    static func makeSources(_ count: Int) -> [ALuint] {
        var out: [ALuint] = []
        _ = alGetError()
        for _ in 0..<count {
            var id: ALuint = 0
            alGenSources(1, &id)
            guard alGetError() == AL_NO_ERROR else { break }
            alSourcei(id, AL_SOURCE_RELATIVE, AL_TRUE)
            alSource3f(id, AL_POSITION, 0, 0, 0)
            alSourcef(id, AL_ROLLOFF_FACTOR, 0)
            alSourcei(id, AL_DIRECT_CHANNELS_SOFT, AL_TRUE)
            alSourcef(id, AL_MAX_GAIN, maxSourceGain)
            out.append(id)
        }
        return out
    }

    /// The sources' AL_MAX_GAIN: room for a full-level mono clip's make-up.
    static let maxSourceGain: Float = 2

    /// alDeleteSources.
    static func deleteSources(_ ids: [ALuint]) {
        guard !ids.isEmpty else { return }
        ids.withUnsafeBufferPointer { alDeleteSources(ALsizei($0.count), $0.baseAddress) }
    }

    /// Binds `buffer` and starts the source (alSourceStop, alSourcei AL_BUFFER /
    /// AL_LOOPING, alSourcef AL_GAIN / AL_PITCH, alSourcePlay).
    ///
    /// OpenAL Soft allocates a queue item whenever a buffer is attached, so a
    /// source keeps its last buffer after it stops and the buffer is attached
    /// again only when it changes: replaying a sound allocates nothing.
    @inline(__always)
    static func start(source: ALuint, buffer: ALuint, gain: Float, pitch: Float, loop: Bool) {
        alSourceStop(source)
        if attachedBuffer(source) != buffer { alSourcei(source, AL_BUFFER, ALint(bitPattern: buffer)) }
        alSourcei(source, AL_LOOPING, loop ? AL_TRUE : AL_FALSE)
        alSourcef(source, AL_GAIN, gain)
        alSourcef(source, AL_PITCH, pitch)
        alSourcePlay(source)
    }

    /// Stops the source (alSourceStop); its buffer stays attached for a replay.
    static func stop(source: ALuint) {
        alSourceStop(source)
    }

    /// The buffer attached to a source (alGetSourcei AL_BUFFER), 0 for none.
    static func attachedBuffer(_ source: ALuint) -> ALuint {
        var value: ALint = 0
        alGetSourcei(source, AL_BUFFER, &value)
        return ALuint(bitPattern: value)
    }

    /// Stops every source holding `buffer` and detaches it, so the buffer can
    /// be deleted (alDeleteBuffers refuses a buffer still attached).
    static func detach(buffer: ALuint, from sources: [ALuint]) {
        for source in sources where attachedBuffer(source) == buffer {
            alSourceStop(source)
            alSourcei(source, AL_BUFFER, 0)
        }
    }

    /// Turns a playing source's looping on or off (AL_LOOPING); off, it stops at the end of the buffer.
    static func setLooping(source: ALuint, _ on: Bool) { alSourcei(source, AL_LOOPING, on ? AL_TRUE : AL_FALSE) }
    static func pause(source: ALuint) { alSourcePause(source) }
    static func resume(source: ALuint) { alSourcePlay(source) }
    static func setGain(source: ALuint, _ gain: Float) { alSourcef(source, AL_GAIN, gain) }

    /// How long the source has still to play its `frames` (at `rate` frames
    /// per second) from where the mixer has got (AL_SAMPLE_OFFSET), at its
    /// pitch (AL_PITCH), in seconds; nil for a looping source, which has no
    /// end to foresee.
    static func secondsLeft(source: ALuint, frames: Int, rate: Int) -> Double? {
        var looping: ALint = 0, offset: ALint = 0
        var pitch: ALfloat = 1
        alGetSourcei(source, AL_LOOPING, &looping)
        if looping != 0 { return nil }
        alGetSourcei(source, AL_SAMPLE_OFFSET, &offset)
        alGetSourcef(source, AL_PITCH, &pitch)
        let left = max(0, frames - Int(offset))
        return Double(left) / (Double(max(rate, 1)) * Double(pitch > 0 ? pitch : 1))
    }

    /// Whether the source has finished (AL_SOURCE_STATE is AL_STOPPED or AL_INITIAL).
    static func hasEnded(source: ALuint) -> Bool {
        var state: ALint = 0
        alGetSourcei(source, AL_SOURCE_STATE, &state)
        return state == AL_STOPPED || state == AL_INITIAL
    }
}
