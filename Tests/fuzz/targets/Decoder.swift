// libFuzzer target: sound-file handling around libsndfile (`SoundDecoder`):
// the header checks, the declared-length cap, the truncation check and the
// sample loop, with mutated WAV/AIFF/FLAC/Ogg files (seeds are real files).
// Property: no crash; an accepted clip is consistent (frames × channels
// samples, finite, within the length cap); a refusal names the file.
import Foundation

nonisolated(unsafe) private let path = "/dev/shm/sysound-fuzz-decoder-\(getpid()).snd"
nonisolated(unsafe) private var registered = false

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if !registered {
        registered = true
        atexit { unlink("/dev/shm/sysound-fuzz-decoder-\(getpid()).snd") }
    }
    FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size))
    let decoder = SoundDecoder(maxSeconds: 2)
    do {
        let clip = try decoder.decode(path: path)
        guard clip.channels == 1 || clip.channels == 2, clip.frames > 0,
              clip.samples.count % clip.channels == 0,
              Double(clip.frames) <= 2 * Double(clip.sampleRate) + 1,
              clip.samples.allSatisfy(\.isFinite)
        else { fatalError("inconsistent clip accepted: \(clip.channels) ch, \(clip.frames) frames, \(clip.sampleRate) Hz") }
    } catch {
        if !error.description.contains(path) { fatalError("refusal does not name the file: \(error)") }
    }
    return 0
}
