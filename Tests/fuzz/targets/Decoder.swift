// libFuzzer target: sound-file handling around libsndfile (`SoundDecoder`):
// the header checks, the declared-length cap, the truncation check and the
// sample loop, with mutated WAV/AIFF/FLAC/Ogg files (seeds are real files).
// Property: no crash; an accepted clip is consistent (frames × channels
// samples, finite, within the length cap), also decoded as the file holds
// it (`withPCM`); a refusal names the file.
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
    // The engine's own decode: as the file holds it, into a mapping that
    // lives only while the body runs.
    do {
        try decoder.withPCM(path: path) { format, pcm in
            guard format.channels == 1 || format.channels == 2, format.frames > 0, pcm.count == format.byteCount,
                  Double(format.frames) <= 2 * Double(format.sampleRate) + 1
            else { fatalError("inconsistent PCM accepted: \(format)") }
            if format.sample == .float32 && !pcm.bindMemory(to: Float.self).allSatisfy(\.isFinite) {
                fatalError("a non-finite float sample was kept")
            }
        }
    } catch {
        if !error.description.contains(path) { fatalError("refusal does not name the file: \(error)") }
    }
    return 0
}
