/// Android's haptic primitives (`VibrationEffect.Composition.PRIMITIVE_*`),
/// each described as Android documents it and as a piece of a `HapticScore`,
/// so that the renderer plays it on whatever motor there is.
public enum HapticPrimitive: String, CaseIterable, Sendable {
    /// A crisp click: a full, sharp tap.
    case click
    /// A light tick, as of a wheel's detent: a soft, sharp tap.
    case tick
    /// A lower, duller tick.
    case lowTick = "low-tick"
    /// A heavy, dull thud, as of something landing.
    case thud
    /// A spin: a quick swell and fall of about 150 ms.
    case spin
    /// A quick rise of about 100 ms to full strength.
    case quickRise = "quick-rise"
    /// A slow rise of about 500 ms to full strength.
    case slowRise = "slow-rise"
    /// A quick fall of about 100 ms from full strength.
    case quickFall = "quick-fall"

    /// How long the primitive takes before the next one in a composition may
    /// start (Android: primitives follow one another, each `delay` after the
    /// previous one's end).
    public var lengthMs: Int {
        switch self {
        case .click, .tick, .lowTick: 20
        case .thud: 60
        case .spin: 150
        case .quickRise, .quickFall: 100
        case .slowRise: 500
        }
    }

    /// The primitive at `atMs`, its strength × `scale`.
    public func events(atMs t: Int, scale: Double) -> [HapticScore.Event] {
        func ramp(_ points: (Int, Double)...) -> HapticScore.Event {
            .continuous(
                atMs: t, durationMs: lengthMs, intensity: scale, sharpness: 0.5,
                curve: IntensityCurve(points: points.map { IntensityCurve.Point(atMs: t + $0.0, level: $0.1) }))
        }
        switch self {
        case .click: return [.transient(atMs: t, intensity: scale, sharpness: 0.9)]
        case .tick: return [.transient(atMs: t, intensity: 0.5 * scale, sharpness: 1)]
        case .lowTick: return [.transient(atMs: t, intensity: 0.4 * scale, sharpness: 0.3)]
        case .thud: return [.continuous(atMs: t, durationMs: lengthMs, intensity: scale, sharpness: 0, curve: IntensityCurve(points: [
            IntensityCurve.Point(atMs: t, level: 1), IntensityCurve.Point(atMs: t + lengthMs, level: 0.3),
        ]))]
        case .spin: return [ramp((0, 0.2), (lengthMs / 2, 1), (lengthMs, 0.2))]
        case .quickRise, .slowRise: return [ramp((0, 0), (lengthMs, 1))]
        case .quickFall: return [ramp((0, 1), (lengthMs, 0))]
        }
    }
}

/// A composition of primitives, as Android's `VibrationEffect.Composition`
/// builds one: each primitive with a scale (0–1, default 1) and a delay (ms,
/// default 0) after the previous primitive's end.
///
/// Text form: `NAME[:SCALE][@DELAY]` separated by commas, e.g.
/// `click,tick:0.5@40,quick-rise`.
public struct HapticComposition: Sendable, Equatable, Hashable, CustomStringConvertible {
    public struct Piece: Sendable, Equatable, Hashable {
        public var primitive: HapticPrimitive
        public var scale: Double
        public var delayMs: Int
        public init(_ primitive: HapticPrimitive, scale: Double = 1, delayMs: Int = 0) {
            self.primitive = primitive
            self.scale = scale
            self.delayMs = delayMs
        }
    }

    public var pieces: [Piece]
    public static let maximumPieces = 64

    public init(_ pieces: [Piece]) { self.pieces = pieces }

    /// The composition on a timeline.
    public var score: HapticScore {
        var t = 0
        var events: [HapticScore.Event] = []
        for piece in pieces {
            t += piece.delayMs
            events += piece.primitive.events(atMs: t, scale: piece.scale)
            t += piece.primitive.lengthMs
        }
        return HapticScore(events: events)
    }

    public var description: String {
        pieces.map { p in
            p.primitive.rawValue + (p.scale == 1 ? "" : ":\(HapticScore.format(p.scale))") + (p.delayMs == 0 ? "" : "@\(p.delayMs)")
        }.joined(separator: ",")
    }

    /// Parses the text form.
    ///
    /// - Throws: `HapticCompositionError` naming the piece and what is expected.
    public init(parsing text: String) throws(HapticCompositionError) {
        guard !ControlValue.trimmed(text).isEmpty else { throw .empty }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count <= Self.maximumPieces else { throw .tooManyPieces(parts.count) }
        var pieces: [Piece] = []
        for (n, raw) in parts.enumerated() {
            let part = ControlValue.trimmed(String(raw))
            var rest = Substring(part)
            var delay = 0
            if let at = rest.firstIndex(of: "@") {
                guard let d = Int(rest[rest.index(after: at)...]), d >= 0, d <= HapticPattern.maximumStepMs else {
                    throw .badDelay(index: n + 1, text: part)
                }
                delay = d
                rest = rest[..<at]
            }
            var scale = 1.0
            if let colon = rest.firstIndex(of: ":") {
                guard let s = Double(rest[rest.index(after: colon)...]), s.isFinite, (0...1).contains(s) else {
                    throw .badScale(index: n + 1, text: part)
                }
                scale = s
                rest = rest[..<colon]
            }
            guard let primitive = HapticPrimitive(rawValue: String(rest)) else {
                throw .unknownPrimitive(index: n + 1, name: String(rest))
            }
            pieces.append(Piece(primitive, scale: scale, delayMs: delay))
        }
        let composition = HapticComposition(pieces)
        let length = composition.score.durationMs()
        guard length <= HapticScore.maximumTotalMs else { throw .tooLong(length) }
        self = composition
    }
}

/// Why a composition's text form was refused.
public enum HapticCompositionError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case tooManyPieces(Int)
    case unknownPrimitive(index: Int, name: String)
    case badScale(index: Int, text: String)
    case badDelay(index: Int, text: String)
    case tooLong(Int)

    public var description: String {
        let form = "primitives NAME[:SCALE][@DELAY_MS] separated by commas, e.g. click,tick:0.5@40,quick-rise"
        switch self {
        case .empty:
            return "empty composition; expected \(form)"
        case .tooManyPieces(let n):
            return "the composition has \(n) primitives; at most \(HapticComposition.maximumPieces) are allowed"
        case .unknownPrimitive(let i, let name):
            return "primitive \(i) \(ControlValue.quoted(name)) is not one of "
                + HapticPrimitive.allCases.map(\.rawValue).joined(separator: ", ")
        case .badScale(let i, let t):
            return "primitive \(i) \(ControlValue.quoted(t)) has a scale outside 0–1 (write NAME:0.5)"
        case .badDelay(let i, let t):
            return "primitive \(i) \(ControlValue.quoted(t)) needs a delay of 0 to \(HapticPattern.maximumStepMs) whole milliseconds (write NAME@40)"
        case .tooLong(let ms):
            return "the composition lasts \(ms) ms; at most \(HapticScore.maximumTotalMs) ms are allowed"
        }
    }
}
