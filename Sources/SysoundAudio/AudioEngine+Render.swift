import Foundation

extension AudioEngine {
    /// Frames rendered between two ticks of the loopback clock (voice ends,
    /// duck and hush ramps), the same cadence as the device monitor.
    var renderChunkFrames: Int {
        max(16, Int(Double(settings.sampleRate) * settings.monitorIntervalMilliseconds / 1000))
    }

    /// Renders the next `frames` frames of the mix from the loopback output
    /// (alcRenderSamplesSOFT): interleaved stereo float32 at `settings.sampleRate`.
    public func render(frames: Int) throws(AudioError) -> [Float] {
        var out = [Float](repeating: 0, count: max(frames, 0) * 2)
        try locked { () throws(AudioError) in
            guard let o = output as? LoopbackOutput else {
                throw .wrongOutput("render(frames:) needs an engine created with output: .loopback")
            }
            out.withUnsafeMutableBufferPointer { mix(o, into: $0.baseAddress!, frames: frames) }
        }
        return out
    }

    /// Mixes `frames` from the loopback output `o` in chunks of
    /// `renderChunkFrames`, ticking the render clock (voice ends, ramps)
    /// after each. `ALLock` held.
    private func mix(_ o: LoopbackOutput, into buf: UnsafeMutablePointer<Float>, frames: Int) {
        o.makeCurrent()
        let chunk = renderChunkFrames
        var done = 0
        while done < frames {
            let n = min(chunk, frames - done)
            o.render(into: buf + done * 2, frames: n)
            done += n
            renderedSeconds += Double(n) / Double(settings.sampleRate)
            tick(now: renderedSeconds)
        }
    }

    /// Hands the output's PulseAudio stream (if it has one) the renderer
    /// below, and has the output's loss reach the monitor as an event.
    /// Without `ALLock`: the stream takes its own lock.
    func connectStream(_ out: any AudioOutputDevice) {
        if let device = out as? OpenALDeviceOutput {
            locked { device.listenForLoss { [weak self] in self?.monitor?.outputFailed() } }
            return
        }
        guard let out = out as? StreamOutput else { return }
        connect(out.stream, to: out)
    }

    /// Has `stream` render `out`'s mix and tell its loss: the output's own
    /// stream, or the one that replaces it after the server's loss (before
    /// it does: nothing reaches `stream` until then). Without `ALLock`.
    func connect(_ stream: PulseStream, to out: StreamOutput) {
        stream.setRenderer { [weak self, weak out] buf, frames in
            guard let self, let out else {
                buf.update(repeating: 0, count: frames * 2)
                return false
            }
            return self.renderForStream(out, into: buf, frames: frames)
        }
        // The server's loss reaches the loop at once: a play in the gap is told
        // there is no device, and the paused monitor needs no polling.
        stream.setFailureHandler { [weak self] in self?.monitor?.outputFailed() }
    }

    /// The stream's renderer (its mainloop thread, under its lock; takes
    /// `ALLock`): the next `frames` of the mix. Returns whether a voice still
    /// plays; when none does, the duck and hush ramps are set to where they
    /// are going (nothing is audible, and the render clock stops while the
    /// stream writes nothing), and the stream stops writing after this block.
    func renderForStream(_ out: StreamOutput, into buf: UnsafeMutablePointer<Float>, frames: Int) -> Bool {
        locked {
            guard output === out else {
                buf.update(repeating: 0, count: frames * 2)
                return false
            }
            mix(out.mixer, into: buf, frames: frames)
            out.rendering = pool.voices.contains(where: { $0.phase == .playing })
            if !out.rendering { settleRampsIfSilent() }
            return out.rendering
        }
    }

    /// Whether any voice is still playing or paused.
    public var hasActiveVoices: Bool { locked { pool.voices.contains { $0.isActive } } }

    /// How many voices are playing or paused now (`voiceCount` is the pool's size).
    public var activeVoiceCount: Int { locked { pool.voices.reduce(0) { $0 + ($1.isActive ? 1 : 0) } } }

    /// Renders until every voice has ended (plus `tailSeconds` of silence),
    /// at most `maxSeconds`, and writes the mix to `path` through libsndfile
    /// (float WAV; FLAC for `.flac`). Returns the rendered samples.
    ///
    /// - Throws: `.wrongOutput` on a device engine; `.writeFailed` naming the
    ///   path; a looping voice stops at `maxSeconds`.
    @discardableResult
    public func renderToFile(_ path: String, maxSeconds: Double = 60, tailSeconds: Double = 0) throws(AudioError) -> [Float] {
        let rate = settings.sampleRate
        let chunk = renderChunkFrames
        let limit = Int(maxSeconds * Double(rate))
        var all: [Float] = []
        var frames = 0
        while frames < limit && hasActiveVoices {
            all += try render(frames: min(chunk, limit - frames))
            frames += min(chunk, limit - frames)
        }
        if hasActiveVoices { stopAll() }
        let tail = Int(tailSeconds * Double(rate))
        if tail > 0 { all += try render(frames: tail) }
        try SoundFileWriter.write(all, channels: 2, sampleRate: rate, to: path)
        return all
    }
}
