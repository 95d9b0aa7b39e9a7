import CSndfile
import Glibc

/// What a sound file's header says, read without decoding the samples:
/// enough for `sysound list` (duration) and `sysound check` (does it open).
package struct SoundFileInfo: Sendable, Equatable {
    package var frames: Int
    package var sampleRate: Int
    package var channels: Int

    package var durationMs: Double { sampleRate > 0 ? Double(frames) * 1000 / Double(sampleRate) : 0 }

    /// Opens `path` with `open(2)` (O_NONBLOCK, so a FIFO cannot hang the
    /// theme's loading), refuses anything but a regular file after `fstat`,
    /// then reads its SF_INFO with `sf_open_fd` (SFM_READ) and closes it with `sf_close`.
    ///
    /// - Throws: the reason libsndfile gives (`sf_strerror`), e.g. for a file
    ///   that is not audio or is truncated, or why the file is no sound file at all.
    package static func read(path: String) throws(SoundFileInfoError) -> SoundFileInfo {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw SoundFileInfoError(path: path, reason: String(cString: strerror(errno)))
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw SoundFileInfoError(path: path, reason: "not a regular file (a directory, FIFO or device cannot be a sound)")
        }
        var info = SF_INFO()
        // close_desc = 1: sf_close closes fd.
        guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, 1) else {
            close(fd)
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
package struct SoundFileInfoError: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "cannot read the sound file \(path): \(reason)" }
}
