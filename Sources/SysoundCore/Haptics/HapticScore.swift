/// A haptic as designers describe it — taps and buzzes on a timeline, each with
/// an intensity and a sharpness, a buzz's intensity shaped by a curve, sounds
/// started at points of it — before it is known which motor plays it. Core
/// Haptics' AHAP files (`AHAPReader`) and Android's compositions of
/// primitives (`HapticComposition`) both become one; `rendered(for:)` turns
/// it into the steps a given motor can play.
///
/// Text form, for the wire and the CLI: events separated by `;`:
/// `t@MS:INTENSITY/SHARPNESS` (a transient), `c@MS+DURATION:INTENSITY/SHARPNESS`
/// (a continuous event) optionally followed by `~MS:LEVEL` points of its
/// intensity curve (times from the score's start), and `s@MS:NAME` (a sound),
/// e.g. `t@0:1/0.8;c@40+200:0.6/0.2~40:0~140:1~240:0;s@0:tap`.
public struct HapticScore: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// A moment of vibration.
    public enum Event: Sendable, Equatable, Hashable {
        /// A short tap: its length is the motor's to choose (sharper is shorter).
        case transient(atMs: Int, intensity: Double, sharpness: Double)
        /// A buzz of a given length, its intensity × `curve` at each instant.
        case continuous(atMs: Int, durationMs: Int, intensity: Double, sharpness: Double, curve: IntensityCurve)

        public var startMs: Int {
            switch self {
            case .transient(let t, _, _), .continuous(let t, _, _, _, _): t
            }
        }
    }

    /// A sound started at a point of the score (AHAP's `AudioCustom`): a
    /// theme sound's name or a file's path, as `play` takes them.
    public struct Sound: Sendable, Equatable, Hashable {
        public var atMs: Int
        public var name: String
        /// Scales the sound's gain, 0–1 (AHAP's `AudioVolume`).
        public var volume: Double
        public init(atMs: Int, name: String, volume: Double = 1) {
            self.atMs = atMs
            self.name = name
            self.volume = volume
        }
    }

    public var events: [Event]
    public var sounds: [Sound]

    /// The same limits as a step pattern's: a score is played as one.
    public static let maximumTotalMs = HapticPattern.maximumTotalMs
    public static let maximumEvents = 256

    public init(events: [Event], sounds: [Sound] = []) {
        self.events = events
        self.sounds = sounds
    }

    /// When the last vibration ends, for a motor whose taps last `transientMs`.
    public func durationMs(transientMs: Int = 0) -> Int {
        events.map { event in
            switch event {
            case .transient(let t, _, _): t + transientMs
            case .continuous(let t, let d, _, _, _): t + d
            }
        }.max() ?? 0
    }

    // MARK: Text form

    public var description: String {
        var parts: [String] = []
        for event in events {
            switch event {
            case .transient(let t, let i, let s):
                parts.append("t@\(t):\(Self.format(i))/\(Self.format(s))")
            case .continuous(let t, let d, let i, let s, let curve):
                parts.append("c@\(t)+\(d):\(Self.format(i))/\(Self.format(s))"
                    + curve.points.map { "~\($0.atMs):\(Self.format($0.level))" }.joined())
            }
        }
        parts += sounds.map { "s@\($0.atMs):\($0.name)" + ($0.volume == 1 ? "" : "*\(Self.format($0.volume))") }
        return parts.joined(separator: ";")
    }

    /// Swift's shortest form that reads back as the same value: the wire
    /// form of a score is the score, not an approximation of it.
    /// Whole numbers print without ".0" only where an `Int` holds them exactly;
    /// a huge or non-finite value (a malformed file's) prints as Swift writes it.
    static func format(_ v: Double) -> String {
        guard v.rounded() == v, abs(v) < 0x1p53 else { return String(v) }
        return String(Int(v))
    }

    /// Parses the text form.
    ///
    /// - Throws: `HapticScoreError` naming the part and what is expected.
    public init(parsing text: String) throws(HapticScoreError) {
        guard !text.isEmpty else { throw .empty }
        var events: [Event] = []
        var sounds: [Sound] = []
        let parts = text.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= Self.maximumEvents else { throw .tooManyEvents(parts.count) }
        for (n, part) in parts.enumerated() {
            let bad = HapticScoreError.malformed(index: n + 1, text: part)
            guard part.count > 2, part.dropFirst().first == "@" else { throw bad }
            let body = part.dropFirst(2)
            switch part.first {
            case "t":
                guard let (time, levels) = Self.split(body, ":"), let at = Self.milliseconds(time),
                      let (i, s) = Self.levels(levels) else { throw bad }
                events.append(.transient(atMs: at, intensity: i, sharpness: s))
            case "c":
                let pieces = body.split(separator: "~", omittingEmptySubsequences: false)
                guard let (span, levels) = Self.split(pieces[0], ":"), let (time, length) = Self.split(span, "+"),
                      let at = Self.milliseconds(time), let d = Self.milliseconds(length), d > 0,
                      let (i, s) = Self.levels(levels) else { throw bad }
                var points: [IntensityCurve.Point] = []
                for piece in pieces.dropFirst() {
                    guard let (time, level) = Self.split(piece, ":"), let pt = Self.milliseconds(time),
                          let l = Double(level), l.isFinite, (0...1).contains(l) else { throw bad }
                    points.append(IntensityCurve.Point(atMs: pt, level: l))
                }
                guard points.count <= IntensityCurve.maximumPoints,
                      zip(points, points.dropFirst()).allSatisfy({ $0.atMs <= $1.atMs }) else { throw bad }
                events.append(.continuous(atMs: at, durationMs: d, intensity: i, sharpness: s, curve: IntensityCurve(points: points)))
            case "s":
                guard let (time, rest) = Self.split(body, ":"), let at = Self.milliseconds(time), !rest.isEmpty else { throw bad }
                var name = Substring(rest), volume = 1.0
                if let star = rest.lastIndex(of: "*"), let v = Double(rest[rest.index(after: star)...]), v.isFinite, (0...1).contains(v) {
                    name = rest[..<star]
                    volume = v
                }
                guard !name.isEmpty else { throw bad }
                sounds.append(Sound(atMs: at, name: String(name), volume: volume))
            default:
                throw bad
            }
        }
        let score = HapticScore(events: events, sounds: sounds)
        guard score.durationMs() <= Self.maximumTotalMs, sounds.allSatisfy({ $0.atMs <= Self.maximumTotalMs }) else {
            throw .tooLong(max(score.durationMs(), sounds.map(\.atMs).max() ?? 0))
        }
        self = score
    }

    private static func split(_ text: Substring, _ separator: Character) -> (Substring, Substring)? {
        guard let i = text.firstIndex(of: separator) else { return nil }
        return (text[..<i], text[text.index(after: i)...])
    }

    private static func milliseconds(_ text: Substring) -> Int? {
        guard let v = Int(text), v >= 0, v <= maximumTotalMs else { return nil }
        return v
    }

    private static func levels(_ text: Substring) -> (Double, Double)? {
        guard let (i, s) = split(text, "/"), let intensity = Double(i), let sharpness = Double(s),
              intensity.isFinite, sharpness.isFinite, (0...1).contains(intensity), (0...1).contains(sharpness) else { return nil }
        return (intensity, sharpness)
    }
}

/// A continuous event's intensity over time: control points (time from the
/// score's start, level 0–1) joined by straight lines, as Core Haptics'
/// parameter curves are; before the first point and after the last the level
/// holds. No points: level 1 throughout.
public struct IntensityCurve: Sendable, Equatable, Hashable {
    public struct Point: Sendable, Equatable, Hashable {
        public var atMs: Int
        public var level: Double
        public init(atMs: Int, level: Double) {
            self.atMs = atMs
            self.level = level
        }
    }

    public var points: [Point]
    /// Core Haptics takes at most 16 control points per curve.
    public static let maximumPoints = 16

    public init(points: [Point] = []) { self.points = points }

    /// The level at `ms` (from the score's start).
    public func level(atMs ms: Int) -> Double {
        guard let first = points.first, let last = points.last else { return 1 }
        if ms <= first.atMs { return first.level }
        if ms >= last.atMs { return last.level }
        for (a, b) in zip(points, points.dropFirst()) where ms >= a.atMs && ms <= b.atMs {
            guard b.atMs > a.atMs else { return b.level }
            return a.level + (b.level - a.level) * Double(ms - a.atMs) / Double(b.atMs - a.atMs)
        }
        return last.level
    }
}

/// Why a score's text form was refused.
public enum HapticScoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooManyEvents(Int)
    case malformed(index: Int, text: String)
    case tooLong(Int)

    public var description: String {
        let form = "events separated by ';' such as t@0:1/0.5 (a tap at 0 ms, intensity 1, sharpness 0.5), "
            + "c@40+200:0.6/0.2~40:0~240:1 (a 200 ms buzz with an intensity curve) or s@0:tap (a sound)"
        switch self {
        case .empty: return "empty haptic score; expected \(form)"
        case .tooManyEvents(let n): return "the score has \(n) events; at most \(HapticScore.maximumEvents) are allowed"
        case .malformed(let i, let t): return "event \(i) \(ControlValue.quoted(t)) is not understood; expected \(form)"
        case .tooLong(let ms): return "the score lasts \(ms) ms; at most \(HapticScore.maximumTotalMs) ms are allowed"
        }
    }
}
