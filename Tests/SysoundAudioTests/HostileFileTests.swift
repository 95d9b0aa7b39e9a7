import Foundation
import XCTest
@testable import SysoundAudio

/// Every kind of bad sound file gets a clear error naming it, and nothing else breaks.
final class HostileFileTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = try Fixture.directory(self)
    }

    /// A PCM WAV header: 16-bit, `channels`, declaring `dataBytes` of data.
    func wavHeader(channels: UInt16, rate: UInt32 = 48_000, dataBytes: UInt32) -> [UInt8] {
        var b: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { b += $0 } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { b += $0 } }
        b += Array("RIFF".utf8); u32(36 &+ dataBytes); b += Array("WAVE".utf8)
        b += Array("fmt ".utf8); u32(16); u16(1); u16(channels); u32(rate)
        u32(rate * UInt32(max(channels, 1)) * 2); u16(max(channels, 1) * 2); u16(16)
        b += Array("data".utf8); u32(dataBytes)
        return b
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Decodes `path`, expecting an error that names it and mentions `words`.
    func assertRefused(_ path: String, mentions words: String..., file: StaticString = #filePath, line: UInt = #line) {
        do {
            let clip = try SoundDecoder().decode(path: path)
            XCTFail("\(path) decoded to \(clip.frames) frames", file: file, line: line)
        } catch {
            let message = error.description
            XCTAssertTrue(message.contains(path), "message does not name the file: \(message)", file: file, line: line)
            for w in words {
                XCTAssertTrue(message.lowercased().contains(w.lowercased()), "message lacks \(w): \(message)", file: file, line: line)
            }
        }
    }

    func testTruncatedWav() throws {
        let good = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.5), to: dir, name: "good.wav")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: good)))
        let path = try write(Array(bytes[0..<(bytes.count / 2)]), "truncated.wav")
        assertRefused(path, mentions: "truncated")
    }

    func testHeaderClaimingMoreFramesThanPresent() throws {
        let pcm = [UInt8](repeating: 0, count: 9_600)
        let path = try write(wavHeader(channels: 1, dataBytes: 96_000) + pcm, "claims-more.wav")
        assertRefused(path, mentions: "declares more audio")
    }

    func testZeroChannels() throws {
        let path = try write(wavHeader(channels: 0, dataBytes: 960) + [UInt8](repeating: 0, count: 960), "zero-channels.wav")
        assertRefused(path)
    }

    func testSixChannels() throws {
        let path = dir + "/six.wav"
        try SoundFileWriter.write([Float](repeating: 0.1, count: 6 * 4_800), channels: 6, sampleRate: 48_000, to: path)
        assertRefused(path, mentions: "6 channels", "mono and stereo")
    }

    func testOneHourFileIsRefusedBeforeReading() throws {
        // A real (sparse) one-hour file: the header is honest, the length is the problem.
        let dataBytes: UInt32 = 3_600 * 48_000 * 2
        let path = try write(wavHeader(channels: 1, dataBytes: dataBytes), "hour.wav")
        let fh = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try fh.truncate(atOffset: 44 + UInt64(dataBytes))
        try fh.close()
        let start = Date()
        assertRefused(path, mentions: "3600 s", "maximum of 30 s")
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5, "refused from the header, not by reading 345 MB")
    }

    func testTextRenamedWav() throws {
        let path = try write(Array("this is not audio, just text\n".utf8), "notes.wav")
        assertRefused(path, mentions: "not a sound file")
    }

    func testUnreadableFile() throws {
        let path = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.1), to: dir, name: "secret.wav")
        chmod(path, 0)
        guard getuid() == 0 else { return assertRefused(path, mentions: "permission denied") }
        // Root reads anything; setfsuid(2) drops this thread's file access to
        // `nobody` (and with it CAP_DAC_OVERRIDE) for the duration of the decode.
        typealias SetFsuid = @convention(c) (uid_t) -> Int32
        let sym = try XCTUnwrap(dlsym(dlopen(nil, RTLD_NOW), "setfsuid"), "lookup of setfsuid")
        let setfsuid = unsafeBitCast(sym, to: SetFsuid.self)
        _ = setfsuid(65_534)
        defer { _ = setfsuid(0) }
        assertRefused(path, mentions: "permission denied")
    }

    func testMissingFile() {
        assertRefused(dir + "/nope.wav", mentions: "no such file")
    }

    func testEmptyFile() throws {
        assertRefused(try write([], "empty.wav"), mentions: "empty")
    }

    func testDirectory() throws {
        let path = dir + "/folder.wav"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        assertRefused(path, mentions: "directory")
    }

    func testFifoDoesNotBlock() throws {
        let path = dir + "/pipe.wav"
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        let start = Date()
        assertRefused(path, mentions: "FIFO")
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5)
    }

    func testSymlinkToDevZero() throws {
        let path = dir + "/zero.wav"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/zero")
        assertRefused(path, mentions: "character device")
    }

    func testBadFilesDoNotStopTheOthersFromLoading() throws {
        let good = try Fixture.write(Fixture.tone(frequency: 440, seconds: 0.1), to: dir, name: "good.wav")
        let text = try write(Array("hello".utf8), "text.wav")
        let fifo = dir + "/fifo.wav"
        mkfifo(fifo, 0o600)
        let engine = try loopbackEngine()
        let report = engine.preload([
            ClipSource(name: "text", path: text), ClipSource(name: "good", path: good),
            ClipSource(name: "fifo", path: fifo), ClipSource(name: "missing", path: dir + "/missing.wav"),
        ])
        XCTAssertEqual(report.loaded, ["good"])
        XCTAssertEqual(report.failures.count, 3)
        XCTAssertEqual(engine.clipNames, ["good"])
        _ = try engine.play(engine.clip(named: "good"))
        XCTAssertGreaterThan(Fixture.peak(try engine.render(frames: 4_800)), 0.4)
    }
}
