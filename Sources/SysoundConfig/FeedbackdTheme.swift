import FoundationEssentials
import Glibc
import SysoundCore

/// A sound of a feedbackd theme: an XDG sound name, played through
/// sysound's theme (its names, aliases and the XDG fallback).
package struct FeedbackdSound: Sendable, Equatable {
    package var effect: String
    /// The stream's role for the sound server (`media-role`: `event`,
    /// `Notification`, `Alarm`…; an unknown one is `event`, with a warning).
    package var mediaRole: MediaRole

    package init(effect: String, mediaRole: MediaRole = .event) {
        self.effect = effect
        self.mediaRole = mediaRole
    }
}

/// `VibraRumble`: `count` pulses of `duration` ms at `magnitude`, `pause` ms apart.
package struct FeedbackdRumble: Sendable, Equatable {
    // feedbackd's defaults are the initializer's, once.
    package var durationMs: Int
    package var count: Int
    package var pauseMs: Int
    package var magnitude: Double

    package init(durationMs: Int = 1000, count: Int = 1, pauseMs: Int = 0, magnitude: Double = 1) {
        self.durationMs = durationMs
        self.count = count
        self.pauseMs = pauseMs
        self.magnitude = magnitude
    }
}

/// `VibraPeriodic`: one long vibration whose strength rises from
/// `fadeInLevel` to `magnitude` over `fadeInMs`.
package struct FeedbackdPeriodic: Sendable, Equatable {
    // feedbackd's defaults are the initializer's, once.
    package var durationMs: Int
    package var magnitude: Double
    package var fadeInMs: Int
    package var fadeInLevel: Double

    package init(durationMs: Int = 1000, magnitude: Double = 0.5, fadeInMs: Int = 500, fadeInLevel: Double = 0) {
        self.durationMs = durationMs
        self.magnitude = magnitude
        self.fadeInMs = fadeInMs
        self.fadeInLevel = fadeInLevel
    }
}

/// `Led`: shown on the notification LED while its event runs (SysoundLeds).
package struct FeedbackdLed: Sendable, Equatable {
    /// red, green, blue, white or #RRGGBB.
    package var color: String
    /// Blinking frequency in mHz; 0 is steady.
    package var frequency: Int
    /// Among the running events' LEDs the highest shows.
    package var priority: Int
    /// Percent of the LED's maximum brightness.
    package var maxBrightness: Int

    // feedbackd's defaults are the initializer's, once.
    package init(color: String, frequency: Int = 0, priority: Int = 0, maxBrightness: Int = 100) {
        self.color = color
        self.frequency = frequency
        self.priority = priority
        self.maxBrightness = maxBrightness
    }

    /// feedbackd's colours: red, green, blue, white or #RRGGBB.
    static func isColor(_ text: String) -> Bool {
        let t = text.lowercased()
        if ["red", "green", "blue", "white"].contains(t) { return true }
        return t.count == 7 && t.hasPrefix("#") && t.dropFirst().allSatisfy(\.isHexDigit)
    }
}

/// One feedback of a theme section, typed.
package enum FeedbackdFeedback: Sendable, Equatable {
    case sound(FeedbackdSound)
    case rumble(FeedbackdRumble)
    case periodic(FeedbackdPeriodic)
    /// `VibraPattern`: steps of magnitude and duration, as sysound's own patterns.
    case pattern(HapticPattern)
    case led(FeedbackdLed)
    /// Blanks what a parent theme gives the event in this section; with a
    /// `duration` (ms), keeps its event running that long (0: over at once).
    case dummy(durationMs: Int)

    /// What the vibration types feel like as one of sysound's patterns; nil for the others.
    package var hapticPattern: HapticPattern? {
        switch self {
        case .rumble(let r):
            var steps: [HapticStep] = []
            for i in 0..<max(r.count, 1) {
                if i > 0 && r.pauseMs > 0 { steps.append(HapticStep(magnitude: 0, durationMs: r.pauseMs)) }
                steps.append(HapticStep(magnitude: r.magnitude, durationMs: r.durationMs))
            }
            return Self.fitted(steps)
        case .periodic(let p):
            // The fade-in as up to ten rising steps (ff-memless itself updates
            // the envelope only every 50 ms), then the rest at full strength.
            let fade = min(p.fadeInMs, p.durationMs)
            let ramp = fade >= 100 ? 10 : (fade > 0 ? 1 : 0)
            var steps: [HapticStep] = []
            for i in 0..<ramp {
                let level = p.fadeInLevel + (p.magnitude - p.fadeInLevel) * Double(i) / Double(ramp)
                steps.append(HapticStep(magnitude: level, durationMs: fade / ramp))
            }
            steps.append(HapticStep(magnitude: p.magnitude, durationMs: p.durationMs - fade / max(ramp, 1) * ramp))
            return Self.fitted(steps)
        case .pattern(let pattern):
            return Self.fitted(pattern.steps)
        case .sound, .led, .dummy:
            return nil
        }
    }

    /// Steps sysound's engine takes: none of 0 ms, none beyond its limits
    /// (a 10 s alarm vibration fits; a longer one is cut, not refused).
    static func fitted(_ steps: [HapticStep]) -> HapticPattern? {
        var kept: [HapticStep] = []
        var total = 0
        for step in steps where step.durationMs > 0 && kept.count < HapticPattern.maximumSteps {
            let ms = min(step.durationMs, HapticPattern.maximumStepMs, HapticPattern.maximumTotalMs - total)
            guard ms > 0 else { break }
            kept.append(HapticStep(magnitude: min(max(step.magnitude, 0), 1), durationMs: ms))
            total += ms
        }
        return kept.isEmpty ? nil : HapticPattern(steps: kept)
    }

    /// One line for people: `sound bell (event)`, `rumble 150 ms`, `led blue 1000 mHz`.
    package var summary: String {
        switch self {
        case .sound(let s): "sound \(s.effect) (\(s.mediaRole))"
        case .rumble(let r):
            "rumble \(r.durationMs) ms" + (r.count > 1 ? " ×\(r.count), \(r.pauseMs) ms apart" : "") + (r.magnitude < 1 ? " at \(Self.show(r.magnitude))" : "")
        case .periodic(let p):
            "periodic \(p.durationMs) ms at \(Self.show(p.magnitude)), fade-in \(p.fadeInMs) ms from \(Self.show(p.fadeInLevel))"
        case .pattern(let p): "pattern \(p)"
        case .led(let l):
            "led \(l.color) " + (l.frequency == 0 ? "steady" : "\(l.frequency) mHz") + (l.priority != 0 ? ", priority \(l.priority)" : "")
                + (l.maxBrightness != 100 ? ", \(l.maxBrightness) %" : "")
        case .dummy(let ms): ms > 0 ? "nothing for \(ms) ms (dummy)" : "nothing (dummy)"
        }
    }

    /// A magnitude to two places (16-bit ones read from older themes are long fractions).
    static func show(_ m: Double) -> String {
        let hundredths = Int((abs(m) * 100).rounded())
        let fraction = hundredths % 100
        return (m < 0 && hundredths > 0 ? "-" : "") + "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}

/// One theme file as written: its name, its parent, and per profile section
/// (full, quiet, silent) the feedback of each event.
package struct FeedbackdThemeFile: Sendable, Equatable {
    package var file: String
    package var name: String?
    package var parentName: String?
    package var sections: [FeedbackProfile: [String: FeedbackdFeedback]] = [:]

    /// Files larger than this are refused: feedbackd's own themes are a few KiB.
    package static let maximumBytes = 1 << 20
    /// Deeper JSON is refused before it is decoded (no recursion to exhaust).
    static let maximumDepth = 16

    /// Parses a theme leniently, as feedbackd would use it: a broken entry is
    /// a warning naming the file and its key, and the rest is still used;
    /// nil (with an error) only when nothing of the file is usable.
    package static func parse(_ data: Data, file: String) -> (FeedbackdThemeFile?, [Diagnostic]) {
        var parser = FeedbackdThemeParser(file: file)
        let theme = parser.parse(data)
        return (theme, parser.diagnostics)
    }

    /// Reads and parses `path`.
    package static func read(path: String) -> (FeedbackdThemeFile?, [Diagnostic]) {
        // One byte past the limit: the parser refuses a file that is too large.
        guard let bytes = SmallFile.bytes(path, limit: maximumBytes + 1) else {
            return (nil, [Diagnostic(.unreadable, file: path, message: "cannot read the feedbackd theme; expected a readable JSON file")])
        }
        // A read error cuts the data short: reported as a JSON error naming the file.
        return parse(Data(bytes), file: path)
    }
}
