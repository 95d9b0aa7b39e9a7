import Foundation
import SysoundCore

/// The JSON walk, collecting what it finds wrong.
struct FeedbackdThemeParser {
    let file: String
    var diagnostics: [Diagnostic] = []

    init(file: String) { self.file = file }

    mutating func report(_ kind: Diagnostic.Kind, _ key: String?, _ message: String, severity: Diagnostic.Severity = .warning) {
        diagnostics.append(Diagnostic(kind, severity: severity, file: file, key: key, message: message))
    }

    mutating func parse(_ data: Data) -> FeedbackdThemeFile? {
        guard data.count <= FeedbackdThemeFile.maximumBytes else {
            report(.invalidValue, nil, "the file is larger than \(FeedbackdThemeFile.maximumBytes) bytes; a feedbackd theme is a small JSON file", severity: .error)
            return nil
        }
        guard Self.depth(of: data) <= FeedbackdThemeFile.maximumDepth else {
            report(.syntax, nil, "JSON nested deeper than \(FeedbackdThemeFile.maximumDepth) levels; expected a feedbackd theme", severity: .error)
            return nil
        }
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            report(.syntax, nil, "not valid JSON (\(error.localizedDescription)); expected a feedbackd theme such as {\"name\": \"custom\", \"profiles\": [...]}", severity: .error)
            return nil
        }
        guard let top = json as? [String: Any] else {
            report(.wrongType, nil, "the file holds \(Self.describe(json)); expected a JSON object with \"name\" and \"profiles\"", severity: .error)
            return nil
        }
        var theme = FeedbackdThemeFile(file: file)
        theme.name = string(top, "name", at: "name")
        theme.parentName = string(top, "parent-name", at: "parent-name")
        unknownKeys(top, known: ["name", "parent-name", "profiles"], at: nil)
        guard let profiles = top["profiles"] else {
            report(.missingKey, "profiles", "no \"profiles\"; the theme gives no feedback")
            return theme
        }
        guard let list = profiles as? [Any] else {
            report(.wrongType, "profiles", "expected an array of profile sections, found \(Self.describe(profiles))")
            return theme
        }
        for (i, item) in list.enumerated() {
            let at = "profiles[\(i)]"
            guard let section = item as? [String: Any] else {
                report(.wrongType, at, "expected an object with \"name\" and \"feedbacks\", found \(Self.describe(item))")
                continue
            }
            unknownKeys(section, known: ["name", "feedbacks"], at: at)
            guard let name = string(section, "name", at: at + ".name"), let level = FeedbackProfile(rawValue: name) else {
                if section["name"] is String {
                    report(.invalidValue, at + ".name", "\"\(Self.show(section["name"]!))\" is not a profile section; expected full, quiet or silent")
                } else {
                    report(.missingKey, at + ".name", "a section needs a name: full, quiet or silent")
                }
                continue
            }
            guard let feedbacks = section["feedbacks"] as? [Any] else {
                report(.wrongType, at + ".feedbacks", "expected an array of feedbacks, found \(Self.describe(section["feedbacks"] as Any))")
                continue
            }
            for (j, entry) in feedbacks.enumerated() {
                let key = "\(at).feedbacks[\(j)]"
                guard let object = entry as? [String: Any] else {
                    report(.wrongType, key, "expected an object with \"event-name\" and \"type\", found \(Self.describe(entry))")
                    continue
                }
                guard let event = string(object, "event-name", at: key + ".event-name"), !event.isEmpty else {
                    report(.missingKey, key + ".event-name", "a feedback needs an \"event-name\"; entry skipped")
                    continue
                }
                if theme.sections[level]?[event] != nil {
                    report(.duplicateName, key, "\"\(Self.show(event))\" appears twice in section \(name); the later entry is used")
                }
                if let feedback = self.feedback(object, at: key, event: event) {
                    theme.sections[level, default: [:]][event] = feedback
                }
            }
        }
        return theme
    }

    /// One entry by its `type`; nil (with a warning) when it cannot be used.
    mutating func feedback(_ o: [String: Any], at key: String, event: String) -> FeedbackdFeedback? {
        let type = string(o, "type", at: key + ".type") ?? ""
        let common = ["event-name", "type"]
        switch type.lowercased() {
        case "sound":
            unknownKeys(o, known: common + ["effect", "media-role"], at: key)
            guard let effect = string(o, "effect", at: key + ".effect"), !effect.isEmpty else {
                report(.missingKey, key + ".effect", "the Sound of \"\(Self.show(event))\" names no \"effect\"; entry skipped")
                return nil
            }
            return .sound(FeedbackdSound(effect: effect, mediaRole: mediaRole(o, at: key + ".media-role")))
        case "vibrarumble":
            unknownKeys(o, known: common + ["duration", "count", "pause", "magnitude"], at: key)
            var r = FeedbackdRumble()
            r.durationMs = milliseconds(o, "duration", at: key, default: r.durationMs)
            r.count = whole(o, "count", at: key, in: 1...100, default: r.count)
            r.pauseMs = milliseconds(o, "pause", at: key, default: r.pauseMs)
            r.magnitude = magnitude(o, "magnitude", at: key, default: r.magnitude)
            return .rumble(r)
        case "vibraperiodic":
            unknownKeys(o, known: common + ["duration", "magnitude", "fade-in-time", "fade-in-level"], at: key)
            var p = FeedbackdPeriodic()
            p.durationMs = milliseconds(o, "duration", at: key, default: p.durationMs)
            p.magnitude = magnitude(o, "magnitude", at: key, default: p.magnitude)
            p.fadeInMs = milliseconds(o, "fade-in-time", at: key, default: p.fadeInMs)
            p.fadeInLevel = magnitude(o, "fade-in-level", at: key, default: p.fadeInLevel)
            return .periodic(p)
        case "vibrapattern":
            unknownKeys(o, known: common + ["magnitudes", "durations"], at: key)
            let magnitudes = (o["magnitudes"] as? [Any])?.map { Self.number($0) } ?? []
            let durations = (o["durations"] as? [Any])?.map { Self.number($0) } ?? []
            guard !magnitudes.isEmpty, magnitudes.count == durations.count,
                !magnitudes.contains(where: { $0 == nil || !(0...1).contains($0!) }),
                !durations.contains(where: { $0 == nil || $0! < 0 || $0! > Double(HapticPattern.maximumStepMs) })
            else {
                report(.invalidValue, key + ".magnitudes", "the VibraPattern of \"\(Self.show(event))\" needs \"magnitudes\" (0–1) and \"durations\" (0–\(HapticPattern.maximumStepMs) ms) of equal, non-zero length; entry skipped")
                return nil
            }
            return .pattern(HapticPattern(steps: zip(magnitudes, durations).map { HapticStep(magnitude: $0!, durationMs: Int($1!)) }))
        case "led":
            unknownKeys(o, known: common + ["color", "frequency", "priority", "max-brightness"], at: key)
            let color = string(o, "color", at: key + ".color") ?? "white"
            return .led(FeedbackdLed(color: color, frequency: whole(o, "frequency", at: key, in: 0...1_000_000, default: 0)))
        case "dummy":
            unknownKeys(o, known: common + ["duration"], at: key)
            return .dummy(durationMs: whole(o, "duration", at: key, in: 0...Int(Int32.max), default: 0, unit: " ms"))
        default:
            report(.invalidValue, key + ".type", "\"\(Self.show(type))\" is not a feedback type; expected Sound, VibraRumble, VibraPeriodic, VibraPattern, Led or Dummy; entry for \"\(Self.show(event))\" skipped")
            return nil
        }
    }

    // MARK: Values

    mutating func string(_ o: [String: Any], _ name: String, at key: String) -> String? {
        guard let value = o[name] else { return nil }
        guard let text = value as? String, !Self.isBool(value) else {
            report(.wrongType, key, "expected a string, found \(Self.describe(value))")
            return nil
        }
        return text
    }

    mutating func milliseconds(_ o: [String: Any], _ name: String, at key: String, default fallback: Int) -> Int {
        whole(o, name, at: key, in: 0...HapticPattern.maximumTotalMs, default: fallback, unit: " ms")
    }

    mutating func whole(_ o: [String: Any], _ name: String, at key: String, in range: ClosedRange<Int>, default fallback: Int, unit: String = "") -> Int {
        guard let value = o[name] else { return fallback }
        guard let number = Self.number(value), number.rounded() == number, number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            report(.outOfRange, "\(key).\(name)", "\(Self.show(value)) is not a whole number from \(range.lowerBound) to \(range.upperBound)\(unit); using \(fallback)")
            return fallback
        }
        return Int(number)
    }

    /// 0–1; older themes (feedbackd before 0.1, Debian's default.json among
    /// them) write 16-bit magnitudes such as 32767, read here as a fraction of 65535.
    mutating func magnitude(_ o: [String: Any], _ name: String, at key: String, default fallback: Double) -> Double {
        guard let value = o[name] else { return fallback }
        guard let number = Self.number(value), number >= 0, number <= 65535 else {
            report(.outOfRange, "\(key).\(name)", "\(Self.show(value)) is not a magnitude; expected 0 to 1; using \(fallback)")
            return fallback
        }
        return number <= 1 ? number : number / 65535
    }

    /// `media-role`: one of `MediaRole`'s, in any case; absent is `event`
    /// (feedbackd's default); an unknown one plays as `event`, with a warning
    /// naming the file and the key (feedbackd hands any string to the server).
    mutating func mediaRole(_ o: [String: Any], at key: String) -> MediaRole {
        guard let text = string(o, "media-role", at: key) else { return .event }
        if let role = MediaRole(parsing: text) { return role }
        report(.invalidValue, key, "unknown media role \"\(Self.show(text))\"; played as event; expected one of \(MediaRole.names)")
        return .event
    }

    mutating func unknownKeys(_ o: [String: Any], known: [String], at key: String?) {
        for name in o.keys.sorted() where !known.contains(name) {
            report(.unknownKey, key.map { "\($0).\(name)" } ?? name, "unknown key, ignored; expected one of \(known.joined(separator: ", "))")
        }
    }

    static func isBool(_ value: Any) -> Bool {
        // JSONSerialization gives true and false as NSNumbers of type "c" (numbers are "i", "q" or "d").
        guard !(value is String), let n = value as? NSNumber else { return false }
        return String(cString: n.objCType) == "c"
    }

    static func number(_ value: Any) -> Double? {
        guard !(value is String), !isBool(value), let n = value as? NSNumber else { return nil }
        let d = n.doubleValue
        return d.isFinite ? d : nil
    }

    static func describe(_ value: Any) -> String {
        switch value {
        case is String: "a string"
        case is [Any]: "an array"
        case is [String: Any]: "an object"
        case is NSNull: "null"
        default: isBool(value) ? "a boolean" : (value is NSNumber ? "a number" : "nothing")
        }
    }

    /// A value for a message, cut short.
    static func show(_ value: Any) -> String {
        let text = "\(value)"
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }

    /// The deepest nesting of arrays and objects, counted without decoding.
    static func depth(of data: Data) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for byte in data {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
