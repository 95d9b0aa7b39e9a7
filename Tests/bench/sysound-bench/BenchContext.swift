import Foundation
import Glibc

/// What every figure shares: mode, paths, the temp directory, the daemon of
/// figures 1, 2, 5 and 6, and the report being filled.
final class BenchContext {
    let smoke: Bool
    let root: String
    let sysound: String
    let work: String
    let sink: String
    let server: SoundServer
    var report: Report
    /// The daemon with the default configuration (figures 1, 2, 5, 6).
    var daemon: BenchDaemon?
    /// Figure 11: only these levers (indices), and only the loaded run.
    var levers: [Int]?
    var leversLoadedOnly = false
    /// `[audio] output` for every config the bench writes (--output); nil keeps the shipped one.
    var output: String?

    init(smoke: Bool, root: String, sysound: String, sink: String, server: SoundServer, report: Report) throws {
        self.smoke = smoke
        self.root = root
        self.sysound = sysound
        self.sink = sink
        self.server = server
        self.report = report
        var template = Array("/tmp/sysound-bench.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchError("cannot create a temp directory under /tmp: errno \(errno)")
        }
        work = String(cString: made)
    }

    /// Iterations: `full` in a real run, `smoke` with --smoke.
    func count(_ full: Int, smoke small: Int) -> Int { smoke ? small : full }
    func seconds(_ full: Double, smoke small: Double) -> Double { smoke ? small : full }

    var themeDirectory: String { root + "/Sounds" }
    var tapPath: String { themeDirectory + "/tap.wav" }

    /// A copy of the shipped config/sysound.toml with the theme directory made
    /// absolute (or replaced) and, if given, another mixing period.
    /// `output` (else the context's --output) sets `[audio] output`.
    func writeConfig(name: String, theme: String? = nil, periodFrames: Int? = nil, output: String? = nil) throws -> String {
        let shipped = root + "/config/sysound.toml"
        guard var text = try? String(contentsOfFile: shipped, encoding: .utf8) else {
            throw BenchError("cannot read \(shipped); pass --package-root with the sysound source tree")
        }
        text = try replacingLine(in: text, starting: "[theme]", with: "[theme]\npaths = [\"\(theme ?? themeDirectory)\"]", file: shipped)
        if let periodFrames {
            text = try replacingLine(in: text, starting: "period_frames = ", with: "period_frames = \(periodFrames)", file: shipped)
        }
        if let output = output ?? self.output {
            text = try replacingLine(in: text, starting: "output = ", with: "output = \"\(output)\"", file: shipped)
        }
        let path = work + "/config-" + name + ".toml"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// Sets the line of config file `path` that starts with `prefix` to `prefix + value`.
    func setConfigLine(_ prefix: String, to value: String, in path: String) throws -> String {
        let text = try replacingLine(in: readTextFile(path) ?? "", starting: prefix, with: prefix + value, file: path)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    private func replacingLine(in text: String, starting prefix: String, with line: String, file: String) throws -> String {
        var lines = text.components(separatedBy: "\n")
        guard let i = lines.firstIndex(where: { $0.hasPrefix(prefix) }) else {
            throw BenchError("\(file) has no line starting with \"\(prefix)\"; the bench edits that key")
        }
        lines[i] = line
        return lines.joined(separator: "\n")
    }

    /// Removes the temp directory (the children are stopped by then).
    func removeWork() {
        _ = try? FileManager.default.removeItem(atPath: work)
    }
}
