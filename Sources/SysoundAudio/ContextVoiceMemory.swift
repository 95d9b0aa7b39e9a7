import Glibc
import SysoundPlatform

/// What became of a new OpenAL Soft context's unused voices.
///
/// OpenAL Soft 1.19's `alcCreateContext` gives every context 256 voices,
/// whatever its attributes ask, in one zeroed block (7.6 MB here without
/// auxiliary sends); sysound plays a few at a time. Each voice's first page
/// holds its pointers (its properties', and its slot in the array at the
/// block's start); the rest of it stays zero until the voice mixes. A daemon
/// (`AudioProcess.keepMemoryLean`) gives those zero pages back as the
/// context is made: this is most of an idle daemon's anonymous memory, and
/// a voice that plays later takes its pages back a page at a time (a minor
/// fault each, the first time).
///
/// Nothing writes the block meanwhile: the context is not current anywhere
/// yet, and the mixer (the engine's render, or OpenAL Soft's thread for its
/// own device) walks only the voices in use, none yet.
///
/// The block is found by what it is, not by OpenAL Soft's private struct
/// layout: the new context holds, among its first words, a pointer to it
/// followed by the voice count in use (0) and the voices made (N, as two
/// 32-bit numbers); the block begins with the array of N pointers to its
/// voices, evenly spaced right after the array. A version of OpenAL Soft
/// that keeps them otherwise is left as it is, and the log line of the
/// output's open says so.
enum ContextVoiceMemory: Equatable, CustomStringConvertible {
    /// Not asked for (a one-shot process or an app, which keep their memory to themselves).
    case kept
    /// `bytes` of zero pages given back, of a block of `voices` voices.
    case released(bytes: Int, voices: Int)
    /// The context did not lead to a block shaped as OpenAL Soft 1.19's.
    case notFound
    /// The kernel refused the release.
    case failed(String)

    var description: String {
        switch self {
        case .kept: ""
        case let .released(bytes, voices):
            "\(bytes / 1024) KB of \(voices) unused OpenAL Soft voices given back"
        case .notFound: "OpenAL Soft's voice block not found: its unused voices stay resident"
        case let .failed(why): "OpenAL Soft's unused voices stay resident: \(why)"
        }
    }

    /// Gives back the zero pages of a just-made context's voice block, where
    /// the process keeps its memory lean.
    static func giveBack(of context: OpaquePointer) -> ContextVoiceMemory {
        guard AudioProcess.keepsMemoryLean else { return .kept }
        guard let block = VoiceBlock.find(from: UInt(bitPattern: UnsafeRawPointer(context))) else {
            return .notFound
        }
        do {
            let range = UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(bitPattern: block.start), count: Int(block.end - block.start))
            return .released(bytes: try ZeroPages.release(range), voices: block.voices)
        } catch {
            return .failed("\(error)")
        }
    }
}

/// Where a context's voices are: [start, end), `voices` of them.
struct VoiceBlock: Equatable {
    let start: UInt
    let end: UInt
    let voices: Int

    static let maxVoices = 4096

    /// Looks among the context's first 256 words for a pointer followed by
    /// the 32-bit pair (0, N) and checks the block it points at: N ≥ 16
    /// pointers p, p + s, p + 2s … with p just past the array (padded with
    /// zeros to 16 bytes). Reads through /proc/self/mem, which fails cleanly on an
    /// address that is not mapped rather than fault.
    static func find(from context: UInt) -> VoiceBlock? {
        let words = OwnMemory.words(at: context, count: 256)
        for i in 0..<max(words.count - 1, 0) {
            let pointer = words[i], counts = words[i + 1]
            let inUse = counts & 0xffff_ffff, made = Int(counts >> 32)
            guard inUse == 0, (16...maxVoices).contains(made), pointer != 0, pointer % 8 == 0 else { continue }
            if let block = check(array: pointer, voices: made) { return block }
        }
        return nil
    }

    /// Whether `array` holds `n` pointers to evenly spaced voices right after
    /// it (and, for an odd `n`, the zero word that pads it to 16 bytes).
    static func check(array: UInt, voices n: Int) -> VoiceBlock? {
        let arrayWords = ((n * 8 + 15) & ~15) / 8
        let slots = OwnMemory.words(at: array, count: arrayWords)
        guard slots.count == arrayWords, n >= 2 else { return nil }
        let first = slots[0], stride = slots[1] &- slots[0]
        guard first == array + UInt(arrayWords * 8), stride >= 64, stride < 1 << 20,
              (0..<n).allSatisfy({ slots[$0] == first + UInt($0) * stride }), slots[n...].allSatisfy({ $0 == 0 })
        else { return nil }
        return VoiceBlock(start: array, end: first + UInt(n) * stride, voices: n)
    }
}

/// Reads of this process's memory that cannot fault (/proc/self/mem).
private enum OwnMemory {
    static func words(at address: UInt, count: Int) -> [UInt] {
        let fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC)
        guard fd >= 0, count > 0 else { return [] }
        defer { close(fd) }
        var words = [UInt](repeating: 0, count: count)
        let got = words.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(address)) }
        return got > 0 ? Array(words.prefix(got / 8)) : []
    }
}
