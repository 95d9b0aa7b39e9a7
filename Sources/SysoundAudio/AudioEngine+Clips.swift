import COpenAL
import FoundationEssentials
import Glibc

/// A sound of the theme to preload.
package struct ClipSource: Sendable, Equatable {
    package var name: String
    package var path: String
    /// The theme's relative gain (kept on the clip for the policy).
    package var gain: Double

    package init(name: String, path: String, gain: Double = 1) {
        self.name = name
        self.path = path
        self.gain = gain
    }
}

/// What `preload` did: the clips now loaded, and the files refused, each with
/// an error naming it. One bad file never keeps the others from loading.
package struct PreloadReport: Sendable {
    package var loaded: [String]
    package var failures: [AudioError]
}

extension AudioEngine {
    /// Loads the theme's sounds: decodes and uploads each whose file or gain
    /// changed (a clip with the same file identity and gain is kept as it
    /// is), and with `replacingTheme` drops the theme clips `sounds` no longer
    /// names. Nothing that plays is cut: a voice of a replaced or dropped clip
    /// plays to its end (a loop until it is stopped) with the data it started
    /// with, and a play meanwhile gets the old clip. Decoding and uploading run
    /// on the host's workers (the caller on loopback) without the engine's lock, the
    /// output's context current for that thread only (`ALThreadContext`):
    /// the render, which takes the lock, never waits for them. The lock is
    /// held only to swap the name → clip table. Caps: clip length, channels,
    /// and the total preload budget (`settings.maxPreloadBytes`).
    @discardableResult
    package func preload(_ sounds: [ClipSource], replacingTheme: Bool = false) -> PreloadReport {
        // Whole themes one at a time (the start's and a reload's), so the
        // later one's removals hold; a single sound loaded for a play never waits here.
        if replacingTheme { themeLoads.lock() }
        defer { if replacingTheme { themeLoads.unlock() } }
        let keys = sounds.map { ClipStore.key(for: $0.path) }
        let (current, changed) = locked { () -> (OpaquePointer?, [Int]) in
            // Holds off the close of this context until the uploads are done (closeAfterUploads, shutdown).
            core.uploadsInFlight += 1
            let changed = sounds.indices.filter { i in
                guard let old = core.store.named[sounds[i].name], let key = keys[i] else { return true }
                return old.fileKey != key || old.gain != sounds[i].gain
            }
            return (output?.context, changed)
        }
        // An ALCcontext pointer, used only until uploadsInFlight drops, while no close can run.
        nonisolated(unsafe) let context = current
        let decoder = SoundDecoder(maxSeconds: settings.maxClipSeconds)
        let load = { @Sendable (i: Int) -> Result<Clip, AudioError> in
            do throws(AudioError) {
                // The PCM lives only until it is in the AL buffer.
                let clip = try decoder.withPCM(path: sounds[i].path) { (format, pcm) throws(AudioError) -> Clip in
                    let clip = Clip(name: sounds[i].name, gain: sounds[i].gain, format: format)
                    if let context {
                        clip.buffer = try ALThreadContext.with(context) { () throws(AudioError) -> ALuint in try AL.makeBuffer(format, pcm) }
                    }
                    return clip
                }
                clip.fileKey = keys[i]
                return .success(clip)
            } catch {
                return .failure(error)
            }
        }
        var report = PreloadReport(loaded: sounds.indices.filter { !changed.contains($0) }.map { sounds[$0].name }, failures: [])
        // In chunks, each swapped in as it is ready: plays of what is loaded
        // already find it while the rest loads (a big theme at start).
        for start in stride(from: 0, to: changed.count, by: Self.preloadChunk) {
            let chunk = Array(changed[start..<min(start + Self.preloadChunk, changed.count)])
            // A whole theme loads on the calling worker alone: it is background
            // work, and on a 2-core device decoding on every worker starved the
            // sound server of the other core (a looping tone broke during a
            // reload on PipeWire). A few sounds for a play use the workers
            // (the daemon's fixed set of threads, not Dispatch).
            let results = replacingTheme ? chunk.map(load) : host?.workers.concurrentMap(count: chunk.count, { load(chunk[$0]) }) ?? chunk.map(load)
            locked { swapIn(results, into: &report, uploadedTo: context) }
            deleteReleasedBuffers()
        }
        locked {
            if replacingTheme {
                let kept = Set(sounds.map(\.name))
                output?.makeCurrent()
                for name in core.store.named.keys where !kept.contains(name) {
                    if let old = core.store.remove(named: name) { retireOrRelease(old) }
                }
            }
            core.uploadsInFlight -= 1
            lock.broadcast()
        }
        deleteReleasedBuffers()
        return report
    }

    /// Sounds decoded and uploaded together before they are swapped in.
    static let preloadChunk = 8

    /// Swaps loaded clips in (lock held): budget checks, then each new clip
    /// replaces its name's old one, which is retired if a voice plays it.
    private func swapIn(_ results: [Result<Clip, AudioError>], into report: inout PreloadReport, uploadedTo context: OpaquePointer?) {
        // Buffers made in another device's context (lost meanwhile) are gone with it.
        let sameOutput = output != nil && output?.context == context
        output?.makeCurrent()
        for result in results {
            switch result {
            case .failure(let error):
                report.failures.append(error)
            case .success(let clip):
                if !sameOutput { clip.buffer = 0 }
                let total = core.store.preloadedBytes - (core.store.named[clip.name]?.format.byteCount ?? 0) + clip.format.byteCount
                guard total <= settings.maxPreloadBytes else {
                    if clip.buffer != 0 { core.releasedBuffers.append(clip.buffer) }
                    report.failures.append(.preloadBudgetExceeded(path: clip.format.path, bytes: total, budget: settings.maxPreloadBytes))
                    continue
                }
                if output != nil && clip.buffer == 0 {
                    // Rare: the device was reopened during the upload; this one is decoded again and goes up under the lock.
                    do { clip.buffer = try reupload(clip) } catch {
                        report.failures.append(error)
                        continue
                    }
                }
                if let old = core.store.add(named: clip) { retireOrRelease(old) }
                report.loaded.append(clip.name)
            }
        }
    }

    /// Decodes `clip`'s file again and makes a buffer of it in the current
    /// context (the engine's lock held with the output's context current, or a thread
    /// context): no copy of the PCM is kept, so a new device gets its clips
    /// from the files. A file whose layout changed since (a reload will load
    /// it anew) is refused, so the byte counts stay those of the buffers.
    func reupload(_ clip: Clip) throws(AudioError) -> ALuint {
        reuploads.add(1, ordering: .relaxed)
        let decoder = SoundDecoder(maxSeconds: settings.maxClipSeconds)
        return try decoder.withPCM(path: clip.format.path) { (format, pcm) throws(AudioError) -> ALuint in
            guard format.sameLayout(as: clip.format) else {
                throw .badFile(path: format.path, reason: "changed since it was loaded (now \(format.channels) ch, \(format.sampleRate) Hz, \(format.frames) frames); it plays again once reloaded")
            }
            return try AL.makeBuffer(format, pcm)
        }
    }

    /// Drops a replaced theme clip: at once if no voice plays it, else when its last voice ends.
    private func retireOrRelease(_ clip: Clip) {
        if core.pool.voices.contains(where: { $0.isActive && $0.clip === clip }) {
            core.store.retire(clip)
        } else {
            release(clip)
        }
    }

    /// Closes an output once no upload into its context is in flight (a
    /// worker's job: it may wait for the sound server).
    func closeAfterUploads(_ out: any AudioOutputDevice) {
        locked {
            while core.uploadsInFlight > 0 { lock.wait() }
        }
        out.close()
    }

    /// The preloaded clip with this name.
    package func clip(named name: String) throws(AudioError) -> Clip {
        guard let clip = guarded({ core.store.named[name] }) else { throw .unknownClip(name) }
        return clip
    }

    /// Names of the preloaded clips.
    package var clipNames: [String] { locked { core.store.named.keys.sorted() } }

    /// The clip of an ad-hoc file, decoded on first use and cached (bounded by
    /// `maxCacheBytes` and `maxCachedFiles`, least recently used evicted). A
    /// file replaced since it was cached is decoded again.
    package func clip(forFile path: String) throws(AudioError) -> Clip {
        let key = ClipStore.key(for: path)
        if let key, let hit = locked({ () -> Clip? in
            let c = core.store.cachedClip(key)
            c?.lastUse = core.store.touch()
            return c
        }) { return hit }
        // Decode and upload outside the lock, as a preload does: a slow or
        // big file never delays play() or the render. The PCM lives only
        // until it is in the AL buffer.
        let decoder = SoundDecoder(maxSeconds: settings.maxClipSeconds)
        let clip = try decoder.withPCM(path: path) { (format, pcm) throws(AudioError) -> Clip in
            guard format.byteCount <= settings.maxCacheBytes else {
                throw .preloadBudgetExceeded(path: path, bytes: format.byteCount, budget: settings.maxCacheBytes)
            }
            let clip = Clip(name: path, gain: 1, format: format)
            // Holds off the close of this context until the upload is done (as a preload's).
            let current = locked { () -> OpaquePointer? in
                core.uploadsInFlight += 1
                return output?.context
            }
            defer {
                locked {
                    core.uploadsInFlight -= 1
                    lock.broadcast()
                }
            }
            // An ALCcontext pointer, used only until uploadsInFlight drops, while no close can run.
            nonisolated(unsafe) let context = current
            if let context {
                clip.buffer = try ALThreadContext.with(context) { () throws(AudioError) -> ALuint in try AL.makeBuffer(format, pcm) }
            }
            return try locked { () throws(AudioError) -> Clip in
                output?.makeCurrent()
                // Another caller cached the same file meanwhile: its clip is the one.
                if let key, let other = core.store.cachedClip(key) {
                    if clip.buffer != 0 && output?.context == context { core.releasedBuffers.append(clip.buffer) }
                    other.lastUse = core.store.touch()
                    return other
                }
                // Made in a device lost meanwhile: gone with it. Rare: a new
                // device came meanwhile; decoded again, up under the lock.
                if output?.context != context { clip.buffer = 0 }
                if output != nil && clip.buffer == 0 { clip.buffer = try reupload(clip) }
                // The voices read apart from the store's change (one access to `core` at a time).
                let voices = core.pool.voices
                let victims = core.store.evictions(
                    forIncoming: format.byteCount, maxBytes: settings.maxCacheBytes, maxFiles: settings.maxCachedFiles,
                    inUse: { c in voices.contains { $0.clip === c } })
                victims.forEach(release)
                clip.lastUse = core.store.touch()
                // Without a key (stat failed after a successful decode) the clip is
                // returned uncached.
                if let key { core.store.add(cached: clip, key: key) }
                return clip
            }
        }
        deleteReleasedBuffers()
        return clip
    }

    /// Bytes of PCM held for the theme and for the ad-hoc cache: what their
    /// AL buffers hold (the file's sample format and channels).
    package var memoryUse: (preloaded: Int, cached: Int) { locked { (core.store.preloadedBytes, core.store.cachedBytes) } }

    /// Drops a clip's buffer, stopping any voice still using it: detached
    /// from every source now (a play can no longer start it: its buffer is
    /// 0), deleted later off the lock (`deleteReleasedBuffers`). Lock held,
    /// the output's context current.
    func release(_ clip: Clip) {
        for i in 0..<core.pool.count where core.pool[i].clip === clip { finish(slot: i) }
        if clip.buffer != 0 && output != nil {
            AL.detach(buffer: clip.buffer, from: core.sources)
            core.releasedBuffers.append(clip.buffer)
        }
        clip.buffer = 0
    }

    /// Deletes the released buffers (alDeleteBuffers frees their PCM) off
    /// the lock, the output's context current for this thread only
    /// (`ALThreadContext`); the context is kept open meanwhile as for an
    /// upload (`uploadsInFlight`). Not on the render's thread: the
    /// monitor's check, a preload and a cache miss call it after their
    /// locked part.
    func deleteReleasedBuffers() {
        let taken = locked { () -> (context: OpaquePointer, buffers: [ALuint])? in
            guard !core.releasedBuffers.isEmpty, let out = output else { return nil }
            core.uploadsInFlight += 1
            defer { core.releasedBuffers = [] }
            return (out.context, core.releasedBuffers)
        }
        guard let taken else { return }
        // An ALCcontext pointer, used only until uploadsInFlight drops, while no close can run.
        nonisolated(unsafe) let context = taken.context
        do {
            try ALThreadContext.with(context) { () throws(AudioError) in
                for buffer in taken.buffers { AL.deleteBuffer(buffer) }
            }
        } catch {
            // Without the extension (checked at open) nothing gets here; the buffers go with the device.
            logger.error("cannot delete \(taken.buffers.count) released clip buffers now (\(error)); they go when the output closes")
        }
        locked {
            core.uploadsInFlight -= 1
            lock.broadcast()
        }
    }
}
