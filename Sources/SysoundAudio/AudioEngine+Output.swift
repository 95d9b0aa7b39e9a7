import COpenAL

/// Taking an opened output and giving it up: its sources and voice pool, and
/// the clips' buffers, which a new output gets from the clips' files.
extension AudioEngine {
    /// Takes a freshly opened output: sources, pool, and the clips' buffers
    /// (`buffers`, made beforehand off the lock by `uploadClips(into:)`; a
    /// clip it lacks — loaded meanwhile — is decoded again here, a clip whose
    /// upload failed there (buffer 0) stays unloaded, and leaves the cache).
    func attach(_ out: any AudioOutputDevice, buffers: [(Clip, ALuint)] = []) {
        core.outputState = .attached(out)
        core.idlePause.endPause()
        core.latencyNs = 0
        // The engine's render ticks with what it has rendered (AudioEngine+Render.swift).
        if out.whoMixes == .engine { core.lastTick = core.renderedSeconds }
        out.makeCurrent()
        core.openedDeviceName = out.name
        let wanted = max(1, min(settings.voices, out.maxSources > 0 ? out.maxSources : settings.voices))
        core.sources = AL.makeSources(wanted)
        core.pool = VoicePool(count: core.sources.count, nextOrder: core.pool.nextOrder)
        core.duckRamp = Ramp()
        core.hushRamp = Ramp()
        // Keyed by identity while `buffers` keeps every clip alive.
        var made = Dictionary(uniqueKeysWithValues: buffers.map { (ObjectIdentifier($0.0), $0.1) })
        var lost: [Clip] = []
        for clip in core.store.allClips {
            if let buffer = made.removeValue(forKey: ObjectIdentifier(clip)) {
                clip.buffer = buffer
                if buffer == 0 { lost.append(clip) }
                continue
            }
            do { clip.buffer = try reupload(clip) } catch {
                logger.error("cannot upload \(clip.name) again: \(error)")
                clip.buffer = 0
                lost.append(clip)
            }
        }
        // An ad-hoc file that cannot be loaded again is decoded anew on its next use.
        core.store.dropCached(lost)
        // Clips dropped while their buffers were made.
        for buffer in made.values where buffer != 0 { AL.deleteBuffer(buffer) }
    }

    /// Makes a buffer in `out`'s context for every clip, decoding its file
    /// again, off the lock (`ALThreadContext`): a reopened device gets its
    /// clips without a long hold of the lock the render takes. `out` is not
    /// attached yet, so nothing else uses its context. A clip that cannot be
    /// loaded again gets buffer 0.
    func uploadClips(into out: any AudioOutputDevice) -> [(Clip, ALuint)] {
        locked { core.store.allClips }.map { clip in
            do {
                return (clip, try ALThreadContext.with(out.context) { () throws(AudioError) -> ALuint in try reupload(clip) })
            } catch {
                logger.error("cannot upload \(clip.name) again: \(error)")
                return (clip, 0)
            }
        }
    }

    /// Ends every voice of `out`, the attached output (lock held).
    func dropVoices(_ out: any AudioOutputDevice) {
        out.makeCurrent()
        for i in 0..<core.pool.count where core.pool[i].isActive { finish(slot: i) }
    }

    /// Ends every voice and deletes the sources and buffers, keeping what
    /// is needed to load the clips again; returns the output for the caller to `close()` after
    /// releasing the lock (closing waits for the sound server).
    func detach() -> (any AudioOutputDevice)? {
        guard let out = output else { return nil }
        dropVoices(out)
        for clip in core.store.forgetRetired() where clip.buffer != 0 {
            AL.deleteBuffer(clip.buffer)
            clip.buffer = 0
        }
        AL.deleteSources(core.sources)
        for buffer in core.releasedBuffers { AL.deleteBuffer(buffer) }
        core.releasedBuffers = []
        for clip in core.store.allClips where clip.buffer != 0 {
            AL.deleteBuffer(clip.buffer)
            clip.buffer = 0
        }
        core.sources = []
        core.pool = VoicePool(count: 0, nextOrder: core.pool.nextOrder)
        out.releaseCurrent()
        core.outputState = core.outputState.isClosed ? .closed : .none
        core.idlePause.endPause()
        return out
    }
}
