import CSndfile
import Foundation
import XCTest

/// Runs the real `sysound` binary, built next to the tests, with a private
/// state directory.
struct CLI {
    let stateDir: String

    init() throws {
        stateDir = NSTemporaryDirectory() + "sysound-e2e-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: stateDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: stateDir) }

    static var binary: String {
        get throws {
            let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            for dir in [binDir, binDir.deletingLastPathComponent()] {
                let path = dir.appendingPathComponent("sysound").path
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
            throw FixtureError("the sysound binary is not built next to the tests; run `swift build --build-tests`")
        }
    }

    static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `sysound ARGS --state-dir DIR` and waits for it.
    @discardableResult
    func run(_ arguments: [String], stateDir override: String? = nil) throws -> Result {
        let child = try Spawned(try Self.binary, arguments + ["--state-dir", override ?? stateDir])
        let status = child.wait()
        return Result(status: status, stdout: child.stdout, stderr: child.stderr)
    }
}

/// Reads a sound file's samples through libsndfile, as float, interleaved.
func readSamples(_ path: String) throws -> (samples: [Float], channels: Int, rate: Int) {
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else { throw FixtureError("cannot open \(path)") }
    defer { sf_close(file) }
    var samples = [Float](repeating: 0, count: Int(info.frames) * Int(info.channels))
    let read = sf_readf_float(file, &samples, info.frames)
    return (Array(samples.prefix(Int(read) * Int(info.channels))), Int(info.channels), Int(info.samplerate))
}

extension Signal {
    /// Pearson correlation of two equally long sequences.
    static func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        let n = min(a.count, b.count)
        let x = a.prefix(n).map(Double.init), y = b.prefix(n).map(Double.init)
        let mx = x.reduce(0, +) / Double(n), my = y.reduce(0, +) / Double(n)
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for i in 0..<n {
            sxy += (x[i] - mx) * (y[i] - my)
            sxx += (x[i] - mx) * (x[i] - mx)
            syy += (y[i] - my) * (y[i] - my)
        }
        return sxy / (sxx * syy).squareRoot()
    }
}
