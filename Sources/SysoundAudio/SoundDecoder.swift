import SysoundCore
import CSndfile
import Foundation

/// Decodes sound files with libsndfile (every format it reads: WAV, FLAC,
/// Ogg Vorbis, Opus, AIFF…) into `DecodedClip`s, refusing hostile files with an
/// error that names the file.
public struct SoundDecoder: Sendable {
    /// Longest clip accepted, in seconds; checked against the declared length
    /// before any sample is read, so a 1-hour file costs nothing.
    public var maxSeconds: Double

    public init(maxSeconds: Double = AudioSettings.defaults.maxClipSeconds) {
        self.maxSeconds = maxSeconds
    }

    /// Opens `path` (regular files only: a FIFO, a directory or `/dev/zero` is
    /// refused after `fstat`, without blocking), reads its header with
    /// `sf_open_fd`, checks channels, rate and declared length, then reads all
    /// frames with `sf_readf_float`.
    public func decode(path: String) throws(AudioError) -> DecodedClip {
        // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw .badFile(path: path, reason: Self.openReason(errno: e))
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            throw .badFile(path: path, reason: "cannot be examined: \(String(cString: strerror(e)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .badFile(path: path, reason: "is \(Self.kind(mode: st.st_mode)), not a regular sound file")
        }
        guard st.st_size > 0 else {
            close(fd)
            throw .badFile(path: path, reason: "is empty, not a sound file")
        }
        var info = SF_INFO()
        // close_desc = 1: sf_close closes fd.
        guard let file = sf_open_fd(fd, Int32(SFM_READ), &info, 1) else {
            let message = String(cString: sf_strerror(nil))
            close(fd)
            throw .badFile(path: path, reason: "is not a sound file libsndfile can read (\(message)); use WAV, FLAC, Ogg Vorbis, Opus or AIFF")
        }
        defer { sf_close(file) }
        return try read(file, info: info, path: path)
    }

    private func read(_ file: OpaquePointer, info: SF_INFO, path: String) throws(AudioError) -> DecodedClip {
        let channels = Int(info.channels)
        guard channels >= 1 else {
            throw .badFile(path: path, reason: "declares \(channels) channels; a sound needs 1 (mono) or 2 (stereo)")
        }
        guard channels <= 2 else {
            throw .badFile(path: path, reason: "has \(channels) channels; only mono and stereo sounds are supported, mix it down to 1 or 2 channels")
        }
        let rate = Int(info.samplerate)
        guard rate >= 1_000, rate <= 384_000 else {
            throw .badFile(path: path, reason: "declares a sample rate of \(rate) Hz; expected 1000–384000 Hz")
        }
        let maxFrames = Int(maxSeconds * Double(rate))
        // libsndfile reports SF_COUNT_MAX when the length is unknown; then the
        // read below stops at the cap instead.
        let declared = Int(info.frames)
        let known = info.frames < Int64.max / 2
        if known && declared > maxFrames {
            throw .clipTooLong(path: path, seconds: Double(declared) / Double(rate), maximum: maxSeconds)
        }
        if let line = Self.shortDataLine(file) {
            throw .badFile(path: path, reason: "is truncated or corrupt: its header declares more audio than the file holds (libsndfile: \(line)); re-export the file")
        }
        let capacity = known ? declared : maxFrames + 1
        guard capacity > 0 else {
            throw .badFile(path: path, reason: "contains no audio frames")
        }
        var samples = [Float](repeating: 0, count: capacity * channels)
        var got = 0
        while got < capacity {
            let n = samples.withUnsafeMutableBufferPointer { buf in
                sf_readf_float(file, buf.baseAddress! + got * channels, sf_count_t(capacity - got))
            }
            if n <= 0 { break }
            got += Int(n)
        }
        if !known && got > maxFrames {
            throw .clipTooLong(path: path, seconds: Double(got) / Double(rate), maximum: maxSeconds)
        }
        let err = sf_error(file)
        if err != 0 {
            throw .badFile(path: path, reason: "cannot be decoded: \(String(cString: sf_error_number(err)))")
        }
        if known && got < declared {
            throw .badFile(path: path, reason: "is truncated: it declares \(declared) frames but holds only \(got); re-export the file")
        }
        guard got > 0 else { throw .badFile(path: path, reason: "contains no audio frames") }
        if got < capacity { samples.removeLast((capacity - got) * channels) }
        // A NaN or infinity in a float file would poison the mix.
        for i in samples.indices where !samples[i].isFinite { samples[i] = 0 }
        return DecodedClip(path: path, samples: samples, channels: channels, sampleRate: rate)
    }

    /// libsndfile clamps a WAV/AIFF data chunk that claims more bytes than the
    /// file holds and only says so in its log (`data : 192000 (should be 48000)`);
    /// `SFC_GET_LOG_INFO` is the one place to see it.
    static func shortDataLine(_ file: OpaquePointer) -> String? {
        var log = [CChar](repeating: 0, count: 8192)
        let n = log.withUnsafeMutableBytes { sf_command(file, Int32(SFC_GET_LOG_INFO), $0.baseAddress, Int32($0.count)) }
        guard n > 0 else { return nil }
        let text = log.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        for line in text.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if (t.hasPrefix("data") || t.hasPrefix("SSND")) && t.contains("should be") { return t }
        }
        return nil
    }

    static func openReason(errno e: Int32) -> String {
        switch e {
        case ENOENT: return "no such file"
        case EACCES, EPERM: return "permission denied; make the file readable by this user"
        case ELOOP: return "too many levels of symbolic links"
        default: return "cannot be opened: \(String(cString: strerror(e)))"
        }
    }

    static func kind(mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }
}
