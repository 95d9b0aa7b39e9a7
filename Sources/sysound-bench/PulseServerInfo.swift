import Foundation

/// What the sound server looked like during an onset measurement, for the
/// report: its name and version, the sink's flags and latency, and every
/// stream open on it (from `pactl`, which speaks to PulseAudio and
/// pipewire-pulse alike). Other streams matter: each one changes how the
/// sink renders and rewinds.
enum PulseServerInfo {
    static func describe(sink: String) -> [String] {
        var lines: [String] = []
        if let info = pactl(["info"]) {
            let keep = ["Server Name", "Server Version", "Default Sample Specification"]
            lines.append("server: " + fields(info.first ?? [], keep).joined(separator: "; "))
        }
        if let sinks = pactl(["list", "sinks"]),
           let ours = sinks.first(where: { $0.contains { $0.trimmingCharacters(in: .whitespaces) == "Name: \(sink)" } }) {
            lines.append("sink \(sink): " + fields(ours, ["State", "Latency", "Flags"]).joined(separator: "; "))
        }
        for (kind, list) in [("sink input", "sink-inputs"), ("source output", "source-outputs")] {
            for block in pactl(["list", list]) ?? [] {
                let props = fields(block, ["application.name", "media.name", "Corked", "Buffer Latency", "Sink Latency", "Source Latency"])
                lines.append("\(kind) \(block.first?.split(separator: "#").last ?? ""): " + props.joined(separator: "; "))
            }
        }
        return lines
    }

    /// `pactl ARGS` split into blocks (a header line and its indented lines); nil if it failed.
    private static func pactl(_ args: [String]) -> [[String]]? {
        guard let (status, output) = try? runCapturing("/usr/bin/pactl", args), exitCode(status) == 0 else { return nil }
        var blocks: [[String]] = []
        for line in output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) {
            if line.first?.isWhitespace == false || blocks.isEmpty { blocks.append([line]) } else { blocks[blocks.count - 1].append(line) }
        }
        // `pactl info` has no header line: every line is its own block.
        return args == ["info"] ? [blocks.flatMap { $0 }] : blocks
    }

    /// "key: value" or "key = value" lines of a block whose key is in `keys`, in the block's order.
    private static func fields(_ block: [String], _ keys: [String]) -> [String] {
        block.compactMap { raw in
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard let key = keys.first(where: { line.hasPrefix($0 + ":") || line.hasPrefix($0 + " =") }) else { return nil }
            return line.hasPrefix(key + ":") ? line : key + ": " + line.dropFirst(key.count + 3).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
    }
}
