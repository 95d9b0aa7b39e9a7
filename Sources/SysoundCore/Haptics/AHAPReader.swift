#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads Apple's Core Haptics pattern files (AHAP, JSON) into a `HapticScore`.
///
/// What it takes: `HapticTransient` and `HapticContinuous` events with
/// `HapticIntensity` (default 1) and `HapticSharpness` (default 0.5);
/// `AudioCustom` events (`EventWaveformPath`: a theme sound's name, or a file
/// relative to the AHAP file) with `AudioVolume`; `HapticIntensityControl` as
/// parameter curves (`ParameterCurve`, control points joined by straight lines)
/// and as dynamic parameters (`Parameter`, a step), multiplying the intensity
/// of what plays at that time. As Core Haptics does, it ignores keys it does
/// not know and clamps values out of range; what it cannot render here
/// (`AudioContinuous`, sharpness and attack/release controls) it ignores with
/// a note, which `sysound check` shows. A malformed file is an `AHAPError`
/// naming the key and its line.
public struct AHAPReader: Sendable {
    /// Where `AudioCustom` files named by a relative path are looked for (the
    /// AHAP file's directory); nil: such paths are kept as they are.
    public var baseDirectory: String?
    /// What was ignored or clamped, each with its line and key, for `check`.
    public private(set) var notes: [AHAPError] = []

    public init(baseDirectory: String? = nil) { self.baseDirectory = baseDirectory }

    /// Reads the AHAP file at `path`; its relative `AudioCustom` paths are
    /// taken from the file's directory.
    public static func read(file path: String) throws(AHAPError) -> (score: HapticScore, notes: [AHAPError]) {
        errno = 0
        guard let text = SmallFile.read(path) else {
            throw AHAPError(line: 0, key: nil, message: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        // Absolute, since the daemon that opens the sounds has another working directory.
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        var reader = AHAPReader(baseDirectory: realpath(directory, nil).map { p in
            defer { free(p) }
            return String(cString: p)
        } ?? directory)
        let score = try reader.read(text)
        return (score, reader.notes)
    }

    /// AHAP files are small; a larger one is refused before it is read.
    public static let maximumBytes = 1 << 20

    public mutating func read(_ text: String) throws(AHAPError) -> HapticScore {
        guard text.utf8.count <= Self.maximumBytes else {
            throw AHAPError(line: 1, key: nil, message: "the file is larger than \(Self.maximumBytes) bytes; an AHAP pattern is a small JSON file")
        }
        let json: PositionedJSON
        do { json = try PositionedJSON(parsing: text) } catch {
            throw AHAPError(line: error.line, key: nil, message: "not valid JSON: \(error.message)")
        }
        guard case .object = json else {
            throw AHAPError(line: json.line, key: nil, message: "the file holds \(json.kind); expected an AHAP object with \"Pattern\"")
        }
        guard let pattern = json["Pattern"] else {
            throw AHAPError(line: json.line, key: "Pattern", message: "no \"Pattern\"; an AHAP file lists its events in \"Pattern\": [...]")
        }
        guard case .array(let entries, _) = pattern else {
            throw AHAPError(line: pattern.line, key: "Pattern", message: "\"Pattern\" is \(pattern.kind); expected an array of events and parameters")
        }
        var transients: [(atMs: Int, intensity: Double, sharpness: Double)] = []
        var continuous: [(atMs: Int, durationMs: Int, intensity: Double, sharpness: Double)] = []
        var sounds: [HapticScore.Sound] = []
        var control = IntensityControl()
        for (n, entry) in entries.enumerated() {
            let at = "Pattern[\(n)]"
            if let event = entry["Event"] {
                let key = at + ".Event"
                let type = try string(event, "EventType", in: key, required: true)!
                let time = try milliseconds(event, "Time", in: key, required: true)!
                let parameters = try self.parameters(event, in: key)
                switch type {
                case "HapticTransient":
                    transients.append((time, parameters["HapticIntensity"] ?? 1, parameters["HapticSharpness"] ?? 0.5))
                case "HapticContinuous":
                    guard let d = try milliseconds(event, "EventDuration", in: key, required: true), d > 0 else {
                        throw AHAPError(line: event.line, key: key + ".EventDuration", message: "a HapticContinuous event needs an EventDuration above 0 (seconds)")
                    }
                    continuous.append((time, d, parameters["HapticIntensity"] ?? 1, parameters["HapticSharpness"] ?? 0.5))
                case "AudioCustom":
                    let path = try string(event, "EventWaveformPath", in: key, required: true)!
                    guard !path.isEmpty else {
                        throw AHAPError(line: event.line, key: key + ".EventWaveformPath", message: "empty; name a theme sound (\"tap\") or a sound file")
                    }
                    let name = resolved(path)
                    // The score's text form (the wire's `score=`) separates its parts
                    // with ';' and a sound's volume with '*': a name holding either,
                    // or a control character, could not be carried as it is.
                    guard !name.contains(where: { $0 == ";" || $0 == "*" || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7f } == true }) else {
                        throw AHAPError(line: event.line, key: key + ".EventWaveformPath",
                                        message: "\(ControlValue.quoted(name)) holds ';', '*' or a control character, which a haptic score cannot carry; rename the file")
                    }
                    sounds.append(HapticScore.Sound(atMs: time, name: name, volume: parameters["AudioVolume"] ?? 1))
                case "AudioContinuous":
                    notes.append(AHAPError(line: event.line, key: key, message: "AudioContinuous (Apple's built-in tone) has no counterpart here; ignored"))
                default:
                    throw AHAPError(line: event.line, key: key + ".EventType",
                                    message: "unknown event type \(ControlValue.quoted(type)); expected HapticTransient, HapticContinuous, AudioCustom or AudioContinuous")
                }
            } else if let curve = entry["ParameterCurve"] {
                let key = at + ".ParameterCurve"
                let id = try string(curve, "ParameterID", in: key, required: true)!
                let start = try milliseconds(curve, "Time", in: key, required: false) ?? 0
                guard let list = curve["ParameterCurveControlPoints"] else {
                    throw AHAPError(line: curve.line, key: key + ".ParameterCurveControlPoints", message: "missing; a curve needs its control points")
                }
                guard case .array(let items, _) = list else {
                    throw AHAPError(line: list.line, key: key + ".ParameterCurveControlPoints", message: "\(list.kind); expected an array of {Time, ParameterValue}")
                }
                var points: [IntensityCurve.Point] = []
                for (i, item) in items.enumerated() {
                    let pointKey = key + ".ParameterCurveControlPoints[\(i)]"
                    let t = try milliseconds(item, "Time", in: pointKey, required: true)!
                    let v = try number(item, "ParameterValue", in: pointKey, required: true)!
                    points.append(IntensityCurve.Point(atMs: start + t, level: clamped(v, at: item.line, key: pointKey + ".ParameterValue")))
                }
                if id == "HapticIntensityControl" {
                    control.add(curve: points.sorted { $0.atMs < $1.atMs })
                } else {
                    notes.append(AHAPError(line: curve.line, key: key, message: "\(id) is not rendered here (only HapticIntensityControl); ignored"))
                }
            } else if let parameter = entry["Parameter"] {
                let key = at + ".Parameter"
                let id = try string(parameter, "ParameterID", in: key, required: true)!
                let t = try milliseconds(parameter, "Time", in: key, required: false) ?? 0
                let v = try number(parameter, "ParameterValue", in: key, required: true)!
                if id == "HapticIntensityControl" {
                    control.add(step: IntensityCurve.Point(atMs: t, level: clamped(v, at: parameter.line, key: key + ".ParameterValue")))
                } else {
                    notes.append(AHAPError(line: parameter.line, key: key, message: "\(id) is not rendered here (only HapticIntensityControl); ignored"))
                }
            } else {
                notes.append(AHAPError(line: entry.line, key: at, message: "neither Event, ParameterCurve nor Parameter; ignored"))
            }
        }
        var events: [HapticScore.Event] = transients.map {
            .transient(atMs: $0.atMs, intensity: $0.intensity * control.level(atMs: $0.atMs), sharpness: $0.sharpness)
        }
        events += continuous.map {
            .continuous(atMs: $0.atMs, durationMs: $0.durationMs, intensity: $0.intensity, sharpness: $0.sharpness,
                        curve: control.curve(from: $0.atMs, to: $0.atMs + $0.durationMs))
        }
        events.sort { $0.startMs < $1.startMs }
        let score = HapticScore(events: events, sounds: sounds.sorted { $0.atMs < $1.atMs })
        guard events.count + sounds.count <= HapticScore.maximumEvents else {
            throw AHAPError(line: pattern.line, key: "Pattern", message: "\(events.count + sounds.count) events; at most \(HapticScore.maximumEvents) are allowed")
        }
        let length = max(score.durationMs(), sounds.map(\.atMs).max() ?? 0)
        guard length <= HapticScore.maximumTotalMs else {
            throw AHAPError(line: pattern.line, key: "Pattern", message: "the pattern lasts \(length) ms; at most \(HapticScore.maximumTotalMs) ms are allowed")
        }
        return score
    }

    // MARK: Values

    private mutating func parameters(_ event: PositionedJSON, in key: String) throws(AHAPError) -> [String: Double] {
        guard let list = event["EventParameters"] else { return [:] }
        guard case .array(let items, _) = list else {
            throw AHAPError(line: list.line, key: key + ".EventParameters", message: "\(list.kind); expected an array of {ParameterID, ParameterValue}")
        }
        var values: [String: Double] = [:]
        for (i, item) in items.enumerated() {
            let at = key + ".EventParameters[\(i)]"
            let id = try string(item, "ParameterID", in: at, required: true)!
            let v = try number(item, "ParameterValue", in: at, required: true)!
            values[id] = clamped(v, at: item.line, key: at + ".ParameterValue")
        }
        return values
    }

    private mutating func clamped(_ v: Double, at line: Int, key: String) -> Double {
        guard v < 0 || v > 1 else { return v }
        notes.append(AHAPError(line: line, key: key, message: "\(HapticScore.format(v)) clamped to 0–1"))
        return min(max(v, 0), 1)
    }

    private func value(_ object: PositionedJSON, _ name: String, in key: String, required: Bool) throws(AHAPError) -> PositionedJSON? {
        guard case .object = object else {
            throw AHAPError(line: object.line, key: key, message: "\(object.kind); expected an object")
        }
        guard let v = object[name] else {
            guard !required else { throw AHAPError(line: object.line, key: key + "." + name, message: "missing") }
            return nil
        }
        return v
    }

    private func string(_ object: PositionedJSON, _ name: String, in key: String, required: Bool) throws(AHAPError) -> String? {
        guard let v = try value(object, name, in: key, required: required) else { return nil }
        guard case .string(let s, _) = v else {
            throw AHAPError(line: v.line, key: key + "." + name, message: "\(v.kind); expected a string")
        }
        return s
    }

    private func number(_ object: PositionedJSON, _ name: String, in key: String, required: Bool) throws(AHAPError) -> Double? {
        guard let v = try value(object, name, in: key, required: required) else { return nil }
        guard case .number(let n, _) = v else {
            throw AHAPError(line: v.line, key: key + "." + name, message: "\(v.kind); expected a number")
        }
        return n
    }

    /// A time in seconds as whole milliseconds; negative times start at 0 and
    /// times past the longest pattern are clamped to it, as Core Haptics clamps.
    private func milliseconds(_ object: PositionedJSON, _ name: String, in key: String, required: Bool) throws(AHAPError) -> Int? {
        guard let seconds = try number(object, name, in: key, required: required) else { return nil }
        return Int((min(max(seconds, 0), Double(HapticScore.maximumTotalMs + 1) / 1000) * 1000).rounded())
    }

    private func resolved(_ path: String) -> String {
        // A bare name is a theme sound; a path (with '/' or an extension) a file.
        guard path.contains("/") || path.contains("."), !path.hasPrefix("/"), let base = baseDirectory else { return path }
        return base.hasSuffix("/") ? base + path : base + "/" + path
    }
}

/// `HapticIntensityControl` over the pattern: 1 until a curve or a dynamic
/// parameter changes it; a curve holds its last value after its end.
private struct IntensityControl {
    /// Breakpoints in time order; between two the level is linear when they
    /// belong to one curve, and holds otherwise.
    private var points: [(point: IntensityCurve.Point, joinsNext: Bool)] = []

    mutating func add(curve: [IntensityCurve.Point]) {
        for (i, p) in curve.enumerated() { insert(p, joinsNext: i + 1 < curve.count) }
    }

    mutating func add(step: IntensityCurve.Point) { insert(step, joinsNext: false) }

    private mutating func insert(_ p: IntensityCurve.Point, joinsNext: Bool) {
        let i = points.firstIndex { $0.point.atMs > p.atMs } ?? points.count
        points.insert((p, joinsNext), at: i)
    }

    func level(atMs t: Int) -> Double {
        guard let i = points.lastIndex(where: { $0.point.atMs <= t }) else { return 1 }
        let a = points[i]
        guard a.joinsNext, i + 1 < points.count else { return a.point.level }
        let b = points[i + 1].point
        guard b.atMs > a.point.atMs else { return b.level }
        return a.point.level + (b.level - a.point.level) * Double(t - a.point.atMs) / Double(b.atMs - a.point.atMs)
    }

    /// The control between `start` and `end` as a continuous event's curve:
    /// its level at both ends and at every breakpoint between, at most
    /// `IntensityCurve.maximumPoints` (evenly resampled beyond).
    func curve(from start: Int, to end: Int) -> IntensityCurve {
        guard !points.isEmpty else { return IntensityCurve() }
        var times = [start] + points.map(\.point.atMs).filter { $0 > start && $0 < end } + [end]
        // A step (a dynamic parameter) holds until the next point: mark it by a
        // point just before it with the previous level.
        var result: [IntensityCurve.Point] = []
        if times.count > IntensityCurve.maximumPoints {
            let n = IntensityCurve.maximumPoints
            times = (0..<n).map { start + (end - start) * $0 / (n - 1) }
        }
        for t in times {
            if t > start, let previous = result.last, previous.atMs < t - 1 {
                let before = level(atMs: t - 1)
                let linear = previous.level + (level(atMs: t) - previous.level) * Double(t - 1 - previous.atMs) / Double(t - previous.atMs)
                if abs(before - linear) > 0.001 && result.count < IntensityCurve.maximumPoints - 1 {
                    result.append(IntensityCurve.Point(atMs: t - 1, level: before))
                }
            }
            if result.count < IntensityCurve.maximumPoints { result.append(IntensityCurve.Point(atMs: t, level: level(atMs: t))) }
        }
        return IntensityCurve(points: result)
    }
}

/// Why an AHAP file was refused, or what of it was ignored or clamped: the
/// line, the key (a path like `Pattern[2].Event.Time`) and what is expected.
public struct AHAPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var key: String?
    public var message: String
    /// 0 when the error is about the file, not a place in it.
    public var description: String {
        let place = [line > 0 ? "line \(line)" : nil, key].compactMap { $0 }.joined(separator: ", ")
        return place.isEmpty ? message : place + ": " + message
    }
}
