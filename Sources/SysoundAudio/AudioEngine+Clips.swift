import Foundation

/// A sound of the theme to preload.
public struct ClipSource: Sendable, Equatable {
    public var name: String
    public var path: String
    /// The theme's relative gain (kept on the clip for the policy).
    public var gain: Double

    public init(name: String, path: String, gain: Double = 1) {
        self.name = name
        self.path = path
        self.gain = gain
    }
}

/// What `preload` did: the clips now loaded, and the files refused, each with
/// an error naming it. One bad file never keeps the others from loading.
public struct PreloadReport: Sendable {
    public var loaded: [String]
    public var failures: [AudioError]
}

extension AudioEngine {
    /// Decodes the sounds (in parallel, on the caller and the host's
    /// workers), then uploads them one by one under the lock. Caps: clip length, channels,
    /// and the total preload budget (`settings.maxPreloadBytes`).
    @discardableResult
    public func preload(_ sounds: [ClipSource]) -> PreloadReport {
        let decoder = SoundDecoder(maxSeconds: settings.maxClipSeconds)
        let paths = sounds.map(\.path)
        let decode = { @Sendable (i: Int) -> Result<DecodedClip, AudioError> in
            do throws(AudioError) { return .success(try decoder.decode(path: paths[i])) } catch { return .failure(error) }
        }
        // The workers, not Dispatch: the daemon keeps its fixed set of threads.
        // A loopback engine (tests) has no host and decodes on the caller.
        let results = host?.workers.concurrentMap(count: paths.count, decode) ?? (0..<paths.count).map(decode)
        var report = PreloadReport(loaded: [], failures: [])
        let lock = ALLock.condition
        lock.lock()
        defer { lock.unlock() }
        output?.makeCurrent()
        for (source, result) in zip(sounds, results) {
            switch result {
            case .failure(let error):
                report.failures.append(error)
            case .success(let pcm):
                let replaced = store.named[source.name]?.pcm.byteCount ?? 0
                let total = store.preloadedBytes - replaced + pcm.byteCount
                guard total <= settings.maxPreloadBytes else {
                    report.failures.append(.preloadBudgetExceeded(path: source.path, bytes: total, budget: settings.maxPreloadBytes))
                    continue
                }
                let clip = Clip(name: source.name, gain: source.gain, pcm: pcm)
                if output != nil {
                    do { clip.buffer = try AL.makeBuffer(pcm) } catch {
                        report.failures.append(error)
                        continue
                    }
                }
                if let old = store.add(named: clip) { release(old) }
                report.loaded.append(source.name)
            }
        }
        return report
    }

    /// The preloaded clip with this name.
    public func clip(named name: String) throws(AudioError) -> Clip {
        try locked { () throws(AudioError) -> Clip in
            guard let clip = store.named[name] else { throw .unknownClip(name) }
            return clip
        }
    }

    /// Names of the preloaded clips.
    public var clipNames: [String] { locked { store.named.keys.sorted() } }

    /// The clip of an ad-hoc file, decoded on first use and cached (bounded by
    /// `maxCacheBytes` and `maxCachedFiles`, least recently used evicted). A
    /// file replaced since it was cached is decoded again.
    public func clip(forFile path: String) throws(AudioError) -> Clip {
        let key = ClipStore.key(for: path)
        if let key, let hit = locked({ () -> Clip? in
            let c = store.cachedClip(key)
            c?.lastUse = store.touch()
            return c
        }) { return hit }
        // Decode outside the lock: a slow file never delays play().
        let pcm = try SoundDecoder(maxSeconds: settings.maxClipSeconds).decode(path: path)
        guard pcm.byteCount <= settings.maxCacheBytes else {
            throw .preloadBudgetExceeded(path: path, bytes: pcm.byteCount, budget: settings.maxCacheBytes)
        }
        let clip = Clip(name: path, gain: 1, pcm: pcm)
        return try locked { () throws(AudioError) -> Clip in
            output?.makeCurrent()
            let victims = store.evictions(
                forIncoming: pcm.byteCount, maxBytes: settings.maxCacheBytes, maxFiles: settings.maxCachedFiles,
                inUse: { c in pool.voices.contains { $0.clip === c } })
            victims.forEach(release)
            if output != nil { clip.buffer = try AL.makeBuffer(pcm) }
            clip.lastUse = store.touch()
            // Without a key (stat failed after a successful decode) the clip is
            // returned uncached.
            if let key { store.add(cached: clip, key: key) }
            return clip
        }
    }

    /// Bytes of PCM held for the theme and for the ad-hoc cache.
    public var memoryUse: (preloaded: Int, cached: Int) { locked { (store.preloadedBytes, store.cachedBytes) } }

    /// Deletes a dropped clip's buffer, stopping any voice still using it.
    func release(_ clip: Clip) {
        for i in 0..<pool.count where pool[i].clip === clip { finish(slot: i) }
        if clip.buffer != 0 && output != nil {
            AL.detach(buffer: clip.buffer, from: sources)
            AL.deleteBuffer(clip.buffer)
        }
        clip.buffer = 0
    }
}
