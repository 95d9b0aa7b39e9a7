import Foundation

extension AudioEngine {
    /// Frames rendered between two ticks of the loopback clock (voice ends,
    /// duck and hush ramps), the same cadence as the device monitor.
    var renderChunkFrames: Int {
        max(16, Int(Double(settings.sampleRate) * settings.monitorIntervalMilliseconds / 1000))
    }

    /// Renders the next `frames` frames of the mix from the loopback output
    /// (alcRenderSamplesSOFT): interleaved stereo float32 at `settings.sampleRate`.
    package func render(frames: Int) throws(AudioError) -> [Float] {
        var out = [Float](repeating: 0, count: max(frames, 0) * 2)
        try locked { () throws(AudioError) in
            guard let o = output?.mixForCaller else {
                throw .wrongOutput("render(frames:) needs an engine created with output: .loopback")
            }
            out.withUnsafeMutableBufferPointer { mix(o, into: $0.baseAddress!, frames: frames) }
        }
        // What the render released (a replaced clip's last voice ended), off the lock.
        deleteReleasedBuffers()
        return out
    }

    /// Mixes `frames` from the loopback output `o` in chunks of
    /// `renderChunkFrames`, ticking the render clock (voice ends, ramps)
    /// after each. The engine's lock held.
    private func mix(_ o: LoopbackOutput, into buf: UnsafeMutablePointer<Float>, frames: Int) {
        o.makeCurrent()
        let chunk = renderChunkFrames
        var done = 0
        while done < frames {
            let n = min(chunk, frames - done)
            o.render(into: buf + done * 2, frames: n)
            done += n
            core.renderedSeconds += Double(n) / Double(settings.sampleRate)
            tick(now: core.renderedSeconds)
        }
    }

    /// The render of an output whose own thread writes the engine's mix (the
    /// own stream's mainloop thread, under its lock; takes the engine's): the
    /// next `frames` of the mix from `mixer`. Returns whether a voice still
    /// plays, also told to `writing` under the lock (a play reads it there);
    /// when none does, the duck and hush ramps are set to where they are
    /// going (nothing is audible, and the render clock stops while the
    /// writer writes nothing), and the writer stops writing after this block.
    func renderForWriter(
        _ out: any AudioOutputDevice, from mixer: LoopbackOutput, into buf: UnsafeMutablePointer<Float>, frames: Int,
        writing: (Bool) -> Void
    ) -> Bool {
        locked {
            guard output === out else {
                buf.update(repeating: 0, count: frames * 2)
                return false
            }
            mix(mixer, into: buf, frames: frames)
            let more = core.pool.voices.contains(where: { $0.phase == .playing })
            writing(more)
            if !more { settleRampsIfSilent() }
            return more
        }
    }

    /// Whether any voice is still playing or paused.
    package var hasActiveVoices: Bool { locked { core.pool.voices.contains { $0.isActive } } }

    /// How many voices are playing or paused now (`voiceCount` is the pool's size).
    package var activeVoiceCount: Int { locked { core.pool.voices.reduce(0) { $0 + ($1.isActive ? 1 : 0) } } }

    /// Renders until every voice has ended (plus `tailSeconds` of silence),
    /// at most `maxSeconds`, and writes the mix to `path` through libsndfile
    /// (float WAV; FLAC for `.flac`). Returns the rendered samples.
    ///
    /// - Throws: `.wrongOutput` on a device engine; `.writeFailed` naming the
    ///   path; a looping voice stops at `maxSeconds`.
    @discardableResult
    package func renderToFile(_ path: String, maxSeconds: Double = 60, tailSeconds: Double = 0) throws(AudioError) -> [Float] {
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
