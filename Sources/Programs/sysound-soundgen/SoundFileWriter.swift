// A thin wrapper over libsndfile's writing calls: the only C in the generator.
import CSndfile
import Foundation

/// Why a sound file could not be written.
struct SoundFileWriteError: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "cannot write \(path): \(reason)" }
}

enum SoundFileWriter {
    /// Writes 48 kHz mono 16-bit PCM WAV to `path`, through a temporary file
    /// renamed into place so a reader never sees half a file.
    ///
    /// Calls `sf_open` (SFM_WRITE, SF_FORMAT_WAV | SF_FORMAT_PCM_16),
    /// `sf_write_short` and `sf_close`. libsndfile adds no PEAK chunk for
    /// 16-bit PCM and no strings unless asked, so the bytes depend only on the
    /// samples (the theme tests regenerate and compare).
    static func writeWAV(_ samples: [Int16], to path: String) throws(SoundFileWriteError) {
        let temporary = path + ".tmp"
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = 1
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        guard let file = sf_open(temporary, Int32(SFM_WRITE), &info) else {
            throw SoundFileWriteError(path: temporary, reason: String(cString: sf_strerror(nil)))
        }
        let written = samples.withUnsafeBufferPointer { sf_write_short(file, $0.baseAddress, sf_count_t($0.count)) }
        let closed = sf_close(file)
        guard written == samples.count, closed == 0 else {
            unlink(temporary)
            throw SoundFileWriteError(path: temporary, reason: "wrote \(written) of \(samples.count) samples (sf_close \(closed))")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SoundFileWriteError(path: path, reason: "rename from \(temporary) failed: \(reason)")
        }
    }
}
