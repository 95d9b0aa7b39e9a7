import CSndfile
import FoundationEssentials
import Glibc
import SysoundCore

/// Decodes sound files with libsndfile (every format it reads: WAV, FLAC,
/// Ogg Vorbis, Opus, AIFF…), refusing hostile files with an error that names
/// the file: checked against the declared length before any sample is read.
package struct SoundDecoder: Sendable {
    /// Longest clip accepted, in seconds; checked against the declared length
    /// before any sample is read, so a 1-hour file costs nothing.
    package var maxSeconds: Double

    package init(maxSeconds: Double = AudioSettings.defaults.maxClipSeconds) {
        self.maxSeconds = maxSeconds
    }

    /// Decodes `path` to float32 (`sf_readf_float`), whatever the file holds:
    /// for analysis. The engine uses `withPCM` instead.
    package func decode(path: String) throws(AudioError) -> DecodedClip {
        try withFile(path: path) { (file, info) throws(AudioError) -> DecodedClip in
            let (channels, rate, capacity) = try check(file, info: info, path: path)
            var samples = [Float](repeating: 0, count: capacity * channels)
            let read = samples.withUnsafeMutableBytes { raw in
                Result { () throws(AudioError) -> Int in
                    try readAll(file, into: raw.baseAddress!, sample: .float32, info: info, capacity: capacity, path: path)
                }
            }
            let got = try read.get()
            if got < capacity { samples.removeLast((capacity - got) * channels) }
            return DecodedClip(path: path, samples: samples, channels: channels, sampleRate: rate)
        }
    }

    /// Decodes `path` as the file holds it — 16-bit integer PCM (and narrower:
    /// 8-bit, A-law, µ-law, ADPCM…) as int16, anything wider or lossy as
    /// float32 — and hands `body` the format and the interleaved PCM. The
    /// PCM lives in an anonymous mapping only while `body` runs (it uploads
    /// it), so its pages go back to the system at once instead of staying in
    /// the allocator's heap: the daemon's memory is what OpenAL holds.
    package func withPCM<T>(
        path: String, _ body: (ClipFormat, UnsafeRawBufferPointer) throws(AudioError) -> T
    ) throws(AudioError) -> T {
        try withFile(path: path) { (file, info) throws(AudioError) -> T in
            let (channels, rate, capacity) = try check(file, info: info, path: path)
            let sample = Self.heldSample(format: info.format)
            let length = capacity * channels * sample.bytes
            guard let map = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), map != MAP_FAILED else {
                throw .badFile(path: path, reason: "cannot be decoded: no memory for \(length) bytes")
            }
            defer { munmap(map, length) }
            let got = try readAll(file, into: map, sample: sample, info: info, capacity: capacity, path: path)
            let format = ClipFormat(path: path, sample: sample, channels: channels, sampleRate: rate, frames: got)
            return try body(format, UnsafeRawBufferPointer(start: map, count: format.byteCount))
        }
    }

    /// How a file's samples are held: 16-bit integer where that is exact
    /// (libsndfile's short reads of these subtypes lose nothing), else float32.
    static func heldSample(format: Int32) -> ClipFormat.Sample {
        switch Int(format) & Int(SF_FORMAT_SUBMASK) {
        case Int(SF_FORMAT_PCM_S8), Int(SF_FORMAT_PCM_U8), Int(SF_FORMAT_PCM_16), Int(SF_FORMAT_ULAW), Int(SF_FORMAT_ALAW),
             Int(SF_FORMAT_IMA_ADPCM), Int(SF_FORMAT_MS_ADPCM), Int(SF_FORMAT_GSM610), Int(SF_FORMAT_VOX_ADPCM),
             Int(SF_FORMAT_G721_32), Int(SF_FORMAT_G723_24), Int(SF_FORMAT_G723_40), Int(SF_FORMAT_DWVW_12),
             Int(SF_FORMAT_DWVW_16), Int(SF_FORMAT_DPCM_8), Int(SF_FORMAT_DPCM_16), Int(SF_FORMAT_ALAC_16):
            return .int16
        default:
            return .float32
        }
    }

    /// Opens `path` (regular files only: a FIFO, a directory or `/dev/zero` is
    /// refused after `fstat`, without blocking), reads its header with
    /// `sf_open_fd` and runs `body` on the open file.
    private func withFile<T>(path: String, _ body: (OpaquePointer, SF_INFO) throws(AudioError) -> T) throws(AudioError) -> T {
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
        return try body(file, info)
    }

    /// Checks channels, rate and declared length; returns the frames to make room for.
    private func check(_ file: OpaquePointer, info: SF_INFO, path: String) throws(AudioError) -> (channels: Int, rate: Int, capacity: Int) {
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
        // read stops at the cap instead.
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
        return (channels, rate, capacity)
    }

    /// Reads every frame into `out` (room for `capacity` frames of `sample`);
    /// returns the frames read.
    private func readAll(
        _ file: OpaquePointer, into out: UnsafeMutableRawPointer, sample: ClipFormat.Sample, info: SF_INFO, capacity: Int, path: String
    ) throws(AudioError) -> Int {
        let channels = Int(info.channels), rate = Int(info.samplerate)
        let frameBytes = channels * sample.bytes
        var got = 0
        while got < capacity {
            let at = out + got * frameBytes, want = sf_count_t(capacity - got)
            let n = switch sample {
            case .int16: sf_readf_short(file, at.assumingMemoryBound(to: Int16.self), want)
            case .float32: sf_readf_float(file, at.assumingMemoryBound(to: Float.self), want)
            }
            if n <= 0 { break }
            got += Int(n)
        }
        let known = info.frames < Int64.max / 2
        if !known && got > Int(maxSeconds * Double(rate)) {
            throw .clipTooLong(path: path, seconds: Double(got) / Double(rate), maximum: maxSeconds)
        }
        let err = sf_error(file)
        if err != 0 {
            throw .badFile(path: path, reason: "cannot be decoded: \(String(cString: sf_error_number(err)))")
        }
        if known && got < Int(info.frames) {
            throw .badFile(path: path, reason: "is truncated: it declares \(info.frames) frames but holds only \(got); re-export the file")
        }
        guard got > 0 else { throw .badFile(path: path, reason: "contains no audio frames") }
        if sample == .float32 {
            // A NaN or infinity in a float file would poison the mix.
            let samples = UnsafeMutableBufferPointer(start: out.assumingMemoryBound(to: Float.self), count: got * channels)
            for i in samples.indices where !samples[i].isFinite { samples[i] = 0 }
        }
        return got
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
            let t = line.trimmingWhitespace()
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
