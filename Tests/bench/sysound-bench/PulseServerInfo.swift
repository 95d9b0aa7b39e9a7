import Foundation

/// What the sound server looked like during an onset measurement, for the
/// report: its name and version, the sink's flags and latency, and every
/// stream open on it (from `pactl`, which speaks to PulseAudio and
/// pipewire-pulse alike); on PipeWire also the graph's clock settings and
/// every running node's latency, which together set the quantum. Other
/// streams matter: each one changes how the sink renders and rewinds, and on
/// PipeWire the smallest latency asked for is the whole graph's quantum.
enum PulseServerInfo {
    static func describe(sink: String, server: SoundServer) -> [String] {
        var lines: [String] = []
        if let info = pactl(["info"]) {
            let keep = ["Server Name", "Server Version", "Default Sample Specification"]
            lines.append("server: " + fields(info.first ?? [], keep).joined(separator: "; "))
        }
        if let ours = sinkBlock(sink) {
            lines.append("sink \(sink): " + fields(ours, ["State", "Latency", "Flags"]).joined(separator: "; "))
        }
        if server == .pipewire { lines += pipewireGraph() }
        for (kind, list) in [("sink input", "sink-inputs"), ("source output", "source-outputs")] {
            for block in pactl(["list", list]) ?? [] {
                let props = fields(block, ["application.name", "media.name", "Corked", "Buffer Latency", "Sink Latency", "Source Latency"])
                lines.append("\(kind) \(block.first?.split(separator: "#").last ?? ""): " + props.joined(separator: "; "))
            }
        }
        return lines
    }

    /// The sink's latency as the server reports it (`pactl list sinks`: "Latency: N usec"), ms.
    static func sinkLatency(_ sink: String) -> Double? {
        guard let line = sinkBlock(sink).flatMap({ fields($0, ["Latency"]).first }) else { return nil }
        let words = line.split(separator: " ")
        guard words.count >= 3, words[2].hasPrefix("usec"), let usec = Double(words[1]) else { return nil }
        return usec / 1000
    }

    private static func sinkBlock(_ sink: String) -> [String]? {
        pactl(["list", "sinks"])?.first { $0.contains { $0.trimmingCharacters(in: .whitespaces) == "Name: \(sink)" } }
    }

    /// The graph's clock settings (`pw-metadata -n settings`: clock.rate,
    /// clock.quantum, its bounds, forced values) and each running node's
    /// `node.latency` (`pw-dump`), whose smallest sets the quantum.
    private static func pipewireGraph() -> [String] {
        var lines: [String] = []
        if let (status, out) = try? runCapturing("/usr/bin/pw-metadata", ["-n", "settings"]), exitCode(status) == 0 {
            // update: id:0 key:'clock.rate' value:'48000' type:''
            let clock = out.split(separator: "\n").compactMap { line -> String? in
                let parts = line.split(separator: "'")
                guard parts.count >= 4, parts[1].hasPrefix("clock.") else { return nil }
                return "\(parts[1]) \(parts[3])"
            }
            lines.append("PipeWire settings: " + clock.joined(separator: ", "))
        }
        if let (status, out) = try? runCapturing("/usr/bin/pw-dump", []), exitCode(status) == 0,
           let objects = try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]] {
            for o in objects where (o["type"] as? String)?.hasSuffix(":Node") == true {
                guard let info = o["info"] as? [String: Any], info["state"] as? String == "running",
                      let props = info["props"] as? [String: Any] else { continue }
                let name = props["node.name"] as? String ?? "?"
                let latency = props["node.latency"] as? String ?? "none asked"
                let client = props["application.name"] as? String ?? props["media.class"] as? String ?? ""
                lines.append("PipeWire node \(o["id"] ?? "?") \(name) (\(client)): running, node.latency \(latency)")
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
