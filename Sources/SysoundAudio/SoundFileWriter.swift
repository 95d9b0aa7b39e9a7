import CSndfile
import FoundationEssentials
import Glibc

/// Writes interleaved float32 PCM to a sound file through libsndfile
/// (`sf_open` + `sf_writef_float`). WAV float by default (16-bit with
/// `sample: .int16`); FLAC when the path ends in `.flac` (16-bit).
package enum SoundFileWriter {
    package static func write(
        _ samples: [Float], channels: Int, sampleRate: Int, to path: String, sample: ClipFormat.Sample = .float32
    ) throws(AudioError) {
        var info = SF_INFO()
        info.channels = Int32(channels)
        info.samplerate = Int32(sampleRate)
        let lower = path.lowercased()
        if lower.hasSuffix(".flac") {
            info.format = Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        } else if lower.hasSuffix(".aiff") || lower.hasSuffix(".aif") {
            info.format = Int32(SF_FORMAT_AIFF | SF_FORMAT_FLOAT)
        } else {
            info.format = Int32(SF_FORMAT_WAV | (sample == .int16 ? SF_FORMAT_PCM_16 : SF_FORMAT_FLOAT))
        }
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw .writeFailed(path: path, reason: String(cString: sf_strerror(nil)))
        }
        let frames = samples.count / max(channels, 1)
        let written = samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(frames)) }
        let err = sf_error(file)
        let closed = sf_close(file)
        guard written == frames, err == 0, closed == 0 else {
            throw .writeFailed(path: path, reason: err != 0 ? String(cString: sf_error_number(err)) : "short write (disk full?)")
        }
    }
}
