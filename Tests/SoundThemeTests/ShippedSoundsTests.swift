import CSndfile
import Foundation
import SysoundConfig
import XCTest

/// The quality rules of the default theme, measured on the decoded samples.
final class ShippedSoundsTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let soundsDir = root + "/Sounds"

    /// Decodes with `sf_open` / `sf_readf_double` (normalized to ±1).
    static func decode(_ path: String) throws -> (samples: [Double], rate: Int, channels: Int) {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw NSError(domain: "decode", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(path): \(String(cString: sf_strerror(nil)))"])
        }
        defer { sf_close(file) }
        var samples = [Double](repeating: 0, count: Int(info.frames) * Int(info.channels))
        let read = samples.withUnsafeMutableBufferPointer { sf_readf_double(file, $0.baseAddress, info.frames) }
        XCTAssertEqual(read, info.frames, "short read of \(path)")
        return (samples, Int(info.samplerate), Int(info.channels))
    }

    /// Highest RMS over any 20 ms window (1 ms hop), in dBFS.
    static func shortTermLoudness(_ x: [Double], rate: Int) -> Double {
        let window = min(x.count, rate / 50)
        var best = 0.0
        var start = 0
        while start + window <= x.count {
            best = max(best, x[start..<(start + window)].reduce(0) { $0 + $1 * $1 } / Double(window))
            start += rate / 1000
        }
        return 10 * log10(best)
    }

    func loadTheme() throws -> Theme {
        var config = SysoundConfiguration(dataDirectory: Self.root)
        config.xdg.fallback = false
        return try Theme.load(configuration: config, environment: [:])
    }

    func testEveryShippedSoundMeetsTheQualityRules() throws {
        let theme = try loadTheme()
        XCTAssertGreaterThanOrEqual(theme.entries.count, 23)
        var loudness: [String: Double] = [:]
        for entry in theme.entries {
            let (x, rate, channels) = try Self.decode(entry.file)
            let name = entry.name
            XCTAssertEqual(rate, 48_000, "\(name): sample rate")
            XCTAssertEqual(channels, 1, "\(name): channels")
            let ms = Double(x.count) * 1000 / Double(rate)
            if entry.loopable {
                XCTAssertLessThanOrEqual(ms, 2050, "\(name): a loop should stay short")
            } else {
                XCTAssert((30...300).contains(ms), "\(name): \(ms) ms is outside 30–300 ms")
                loudness[name] = Self.shortTermLoudness(x, rate: rate)
            }
            let peak = x.reduce(0) { max($0, abs($1)) }
            XCTAssertLessThanOrEqual(20 * log10(peak), -1.0, "\(name): peak above −1 dBFS")
            XCTAssertGreaterThan(20 * log10(peak), -30, "\(name): nearly silent")
            let mean = x.reduce(0, +) / Double(x.count)
            XCTAssertLessThan(abs(mean), 0.001, "\(name): DC offset \(mean)")
            // No click: the clip starts and ends at zero, and fades: within the
            // first and last 0.25 ms it stays under a tenth of its peak.
            XCTAssertLessThanOrEqual(abs(x.first!), 2.0 / 32768, "\(name): first sample is not zero")
            XCTAssertLessThanOrEqual(abs(x.last!), 2.0 / 32768, "\(name): last sample is not zero")
            let edge = rate / 4000
            let head = x.prefix(edge).reduce(0) { max($0, abs($1)) }
            let tail = x.suffix(edge).reduce(0) { max($0, abs($1)) }
            XCTAssertLessThan(head, 0.1 * peak, "\(name): no fade-in, the start would click")
            XCTAssertLessThan(tail, 0.1 * peak, "\(name): no fade-out, the end would click")
            if entry.loopable {
                XCTAssertLessThan(abs(x.last! - x.first!), 2.0 / 32768, "\(name): the loop point is not seamless")
            }
        }
        let levels = loudness.values
        let spread = (levels.max() ?? 0) - (levels.min() ?? 0)
        XCTAssertLessThanOrEqual(spread, 2.0, "UI sounds differ in loudness by \(spread) dB: \(loudness)")
    }

    func testIndexAndFilesAgree() throws {
        let theme = try loadTheme()
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.soundsDir).filter { $0.hasSuffix(".wav") }
        let indexed = Set(theme.entries.map { ($0.file as NSString).lastPathComponent })
        XCTAssertEqual(Set(files), indexed, "every sound file is in index.toml and every index entry has a file")
        let required = [
            "tap", "click", "key", "key-delete", "toggle-on", "toggle-off", "selection", "lock", "unlock",
            "notification", "message-sent", "success", "warning", "error", "camera-shutter", "screen-capture",
            "volume-change", "device-added", "device-removed", "battery-low", "bell", "alarm", "ringtone",
        ]
        for name in required { XCTAssertNotNil(theme.entry(named: name), "missing sound \(name)") }
        XCTAssertTrue(theme.entry(named: "alarm")!.loopable)
        XCTAssertTrue(theme.entry(named: "ringtone")!.loopable)
        XCTAssertEqual(theme.entry(named: "alarm")!.category, .playback)
        XCTAssertEqual(theme.entry(named: "error")!.category, .alert)
        let bytes = try files.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: Self.soundsDir + "/" + $1)[.size] as? Int) ?? 0) }
        XCTAssertLessThan(bytes, 2_000_000, "the theme folder must stay under 2 MB")
    }

    func testEveryFreedesktopNameResolvesToAThemeSound() throws {
        let theme = try loadTheme()
        let names: [String: String] = [
            "button-pressed": "tap", "key-pressed": "key", "message-new-instant": "notification",
            "dialog-warning": "warning", "dialog-error": "error", "dialog-information": "notification",
            "complete": "success", "camera-shutter": "camera-shutter", "screen-capture": "screen-capture",
            "audio-volume-change": "volume-change", "device-added": "device-added",
            "device-removed": "device-removed", "battery-low": "battery-low", "bell": "bell",
            "bell-terminal": "bell", "alarm-clock-elapsed": "alarm", "phone-incoming-call": "ringtone",
            "desktop-screen-lock": "lock", "desktop-screen-unlock": "unlock",
        ]
        for (name, sound) in names {
            let resolved = try theme.resolve(name)
            XCTAssertEqual(resolved.entry.name, sound, name)
            XCTAssertTrue(FileManager.default.fileExists(atPath: resolved.path), name)
        }
    }

    /// Regenerates the theme into a temporary directory and compares bytes.
    func testGeneratorIsDeterministic() throws {
        let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [binDir, binDir.deletingLastPathComponent()].map { $0.appendingPathComponent("sysound-soundgen").path }
        guard let generator = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return XCTFail("sysound-soundgen is not built next to the tests (looked at \(candidates)); run `swift build --product sysound-soundgen` first")
        }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("soundgen-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: generator)
        process.arguments = [out]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let generated = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        let shipped = try FileManager.default.contentsOfDirectory(atPath: Self.soundsDir).filter { $0.hasSuffix(".wav") }.sorted()
        XCTAssertEqual(generated, shipped)
        for name in generated {
            let a = FileManager.default.contents(atPath: out + "/" + name)
            let b = FileManager.default.contents(atPath: Self.soundsDir + "/" + name)
            XCTAssertEqual(a, b, "\(name) differs from the shipped file: regenerate with `swift run sysound-soundgen Sounds`")
        }
    }
}
