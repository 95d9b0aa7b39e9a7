import CSndfile

/// What a sound file's header says, read without decoding the samples:
/// enough for `sysound list` (duration) and `sysound check` (does it open).
public struct SoundFileInfo: Sendable, Equatable {
    public var frames: Int
    public var sampleRate: Int
    public var channels: Int

    public var durationMs: Double { sampleRate > 0 ? Double(frames) * 1000 / Double(sampleRate) : 0 }

    /// Opens `path` with `sf_open` (SFM_READ), reads its SF_INFO and closes
    /// it with `sf_close`.
    ///
    /// - Throws: the reason libsndfile gives (`sf_strerror`), e.g. for a file
    ///   that is not audio or is truncated.
    public static func read(path: String) throws(SoundFileInfoError) -> SoundFileInfo {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw SoundFileInfoError(path: path, reason: String(cString: sf_strerror(nil)))
        }
        sf_close(file)
        guard info.samplerate > 0, info.channels > 0, info.frames >= 0 else {
            throw SoundFileInfoError(path: path, reason: "header says \(info.samplerate) Hz, \(info.channels) channels")
        }
        return SoundFileInfo(frames: Int(info.frames), sampleRate: Int(info.samplerate), channels: Int(info.channels))
    }
}

/// A sound file libsndfile cannot open.
public struct SoundFileInfoError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot read the sound file \(path): \(reason)" }
}
