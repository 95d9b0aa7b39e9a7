import FoundationEssentials
import Glibc

/// The engine's clips: the theme's, preloaded by name, and ad-hoc files cached
/// by identity (device, inode, size, mtime) with least-recently-used eviction.
/// Guarded by the engine's lock; AL buffers are made by the engine.
struct ClipStore {
    /// Identifies a file's content without reading it: a replaced file misses.
    struct FileKey: Hashable {
        var path: String
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var mtime: Int64
        var mtimeNanos: Int
    }

    private(set) var named: [String: Clip] = [:]
    private(set) var cached: [FileKey: Clip] = [:]
    /// Clips a reload replaced or removed while a voice played them; they
    /// leave when their last voice ends.
    private(set) var retired: [Clip] = []
    private(set) var preloadedBytes = 0
    private(set) var cachedBytes = 0
    private var useCounter: UInt64 = 0

    var allClips: [Clip] { Array(named.values) + Array(cached.values) }

    /// The next LRU stamp.
    mutating func touch() -> UInt64 {
        useCounter &+= 1
        return useCounter
    }

    /// Adds a theme clip, replacing one of the same name; returns the old one.
    mutating func add(named clip: Clip) -> Clip? {
        let old = named.updateValue(clip, forKey: clip.name)
        preloadedBytes += clip.format.byteCount - (old?.format.byteCount ?? 0)
        return old
    }

    /// Removes the theme clip `name`; returns it.
    mutating func remove(named name: String) -> Clip? {
        guard let old = named.removeValue(forKey: name) else { return nil }
        preloadedBytes -= old.format.byteCount
        return old
    }

    /// Keeps `clip` until its last voice ends.
    mutating func retire(_ clip: Clip) {
        clip.retired = true
        retired.append(clip)
    }

    /// Drops a retired clip (its last voice ended).
    mutating func forget(retired clip: Clip) {
        retired.removeAll { $0 === clip }
    }

    /// Drops every retired clip (the device and its voices are gone).
    mutating func forgetRetired() -> [Clip] {
        defer { retired = [] }
        return retired
    }

    func cachedClip(_ key: FileKey) -> Clip? { cached[key] }

    mutating func add(cached clip: Clip, key: FileKey) {
        cached[key] = clip
        cachedBytes += clip.format.byteCount
    }

    /// Forgets these clips if they are cached ad-hoc files (their buffers are gone).
    mutating func dropCached(_ clips: [Clip]) {
        for clip in clips where !clip.evicted {
            guard let key = cached.first(where: { $0.value === clip })?.key else { continue }
            cached[key] = nil
            cachedBytes -= clip.format.byteCount
            clip.evicted = true
        }
    }

    /// Picks the least recently used cached clips to drop so that `incoming`
    /// more bytes and one more file fit, skipping clips a voice is playing.
    mutating func evictions(
        forIncoming incoming: Int, maxBytes: Int, maxFiles: Int, inUse: (Clip) -> Bool
    ) -> [Clip] {
        var victims: [Clip] = []
        let order = cached.sorted { $0.value.lastUse < $1.value.lastUse }
        var bytes = cachedBytes + incoming
        var files = cached.count + 1
        for (key, clip) in order where bytes > maxBytes || files > maxFiles {
            if inUse(clip) { continue }
            cached[key] = nil
            cachedBytes -= clip.format.byteCount
            bytes -= clip.format.byteCount
            files -= 1
            clip.evicted = true
            victims.append(clip)
        }
        return victims
    }

    /// The identity of the file at `path` now (stat follows symlinks).
    static func key(for path: String) -> FileKey? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileKey(
            path: path, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
            mtime: Int64(st.st_mtim.tv_sec), mtimeNanos: Int(st.st_mtim.tv_nsec))
    }
}
