import Foundation
import SysoundTestSupport

/// Sound files made to hurt a decoder or a daemon, written into a directory.
/// Each one's expected refusal is a phrase the error must contain (besides the path).
enum HostileFiles {
    struct Case {
        var name: String
        /// Words the error must contain (lower-cased match).
        var says: [String]
    }

    static let cases: [Case] = [
        Case(name: "truncated.wav", says: ["truncated"]),
        Case(name: "lying-header.wav", says: ["channels"]),
        Case(name: "huge-declared.wav", says: ["truncated"]),
        Case(name: "zero-length.wav", says: ["empty"]),
        Case(name: "one-hour.wav", says: ["3600"]),
        Case(name: "not-audio.wav", says: ["not a sound file"]),
        Case(name: "fifo.wav", says: ["fifo"]),
        Case(name: "dev-zero.wav", says: ["character device"]),
        Case(name: "directory.wav", says: ["directory"]),
        Case(name: "unreadable.wav", says: ["permission denied"]),
    ]

    /// A 16-bit PCM WAV header. `dataBytes` is what the header declares.
    static func wavHeader(channels: Int, rate: Int, dataBytes: UInt32) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        let block = channels * 2
        return Array("RIFF".utf8) + le32(dataBytes &+ 36) + Array("WAVEfmt ".utf8) + le32(16)
            + le16(1) + le16(channels) + le32(UInt32(rate)) + le32(UInt32(rate * block)) + le16(block) + le16(16)
            + Array("data".utf8) + le32(dataBytes)
    }

    /// Writes every case into `dir` (created). The unreadable one is mode 000.
    static func write(into dir: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func put(_ name: String, _ bytes: [UInt8]) { fm.createFile(atPath: dir + "/" + name, contents: Data(bytes)) }
        let tone = (0..<4800).flatMap { i -> [UInt8] in
            let v = Int16(8000 * sin(Double(i) * 2 * .pi * 440 / 48_000))
            return [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
        }
        // Declares 1 s, holds 0.1 s.
        put("truncated.wav", wavHeader(channels: 1, rate: 48_000, dataBytes: 96_000) + tone)
        // Declares 9 channels (a sound needs 1 or 2).
        put("lying-header.wav", wavHeader(channels: 9, rate: 48_000, dataBytes: UInt32(tone.count)) + tone)
        // Declares 4 GB of audio in a 9.6 kB file.
        put("huge-declared.wav", wavHeader(channels: 1, rate: 48_000, dataBytes: 0xFFFF_FF00) + tone)
        put("zero-length.wav", [])
        // A real 1-hour file, sparse so it costs no disk: 3600 s × 48 kHz × 2 bytes.
        let hourBytes = UInt32(3600 * 48_000 * 2)
        put("one-hour.wav", wavHeader(channels: 1, rate: 48_000, dataBytes: hourBytes))
        let handle = FileHandle(forWritingAtPath: dir + "/one-hour.wav")!
        try handle.truncate(atOffset: UInt64(hourBytes) + 44)
        try handle.close()
        put("not-audio.wav", Array("#!/bin/sh\necho this is not a sound\n".utf8))
        guard mkfifo(dir + "/fifo.wav", 0o644) == 0 else { throw FixtureError("mkfifo failed: errno \(errno)") }
        try fm.createSymbolicLink(atPath: dir + "/dev-zero.wav", withDestinationPath: "/dev/zero")
        try fm.createDirectory(atPath: dir + "/directory.wav", withIntermediateDirectories: false)
        put("unreadable.wav", wavHeader(channels: 1, rate: 48_000, dataBytes: UInt32(tone.count)) + tone)
        chmod(dir + "/unreadable.wav", 0)
        // And one good sound, so the theme has something that must keep playing.
        put("good.wav", wavHeader(channels: 1, rate: 48_000, dataBytes: UInt32(tone.count)) + tone)
    }

    /// An index.toml naming every case as sound `<name without .wav>`, plus `good`.
    static var index: String {
        (cases.map(\.name) + ["good.wav"]).map { file in
            "[sounds.\(file.replacingOccurrences(of: ".wav", with: ""))]\nfile = \"\(file)\"\n"
        }.joined(separator: "\n")
    }
}
