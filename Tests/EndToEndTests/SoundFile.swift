import CSndfile
import SysoundTestSupport

/// Reads a sound file's samples through libsndfile (sf_open, sf_readf_float),
/// as float, interleaved.
func readSamples(_ path: String) throws -> (samples: [Float], channels: Int, rate: Int) {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else { throw FixtureError("cannot open \(path)") }
    defer { sf_close(file) }
    var samples = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
    let read = sf_readf_float(file, &samples, info.frames)
    return (Array(samples.prefix(Int(read) * Int(info.channels))), Int(info.channels), Int(info.samplerate))
}
