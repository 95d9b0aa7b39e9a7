import FoundationEssentials
import Glibc
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
        let json: PositionedJSON
        do throws(PositionedJSONError) {
            json = try PositionedJSON(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            report(.syntax, nil, "not valid JSON (\(error)); expected a feedbackd theme such as {\"name\": \"custom\", \"profiles\": [...]}", severity: .error)
            return nil
        }
        guard case .object = json else {
            report(.wrongType, nil, "the file holds \(Self.describe(json)); expected a JSON object with \"name\" and \"profiles\"", severity: .error)
            return nil
        }
        let top = json
        var theme = FeedbackdThemeFile(file: file)
        theme.name = string(top, "name", at: "name")
        theme.parentName = string(top, "parent-name", at: "parent-name")
        unknownKeys(top, known: ["name", "parent-name", "profiles"], at: nil)
        guard let profiles = top["profiles"] else {
            report(.missingKey, "profiles", "no \"profiles\"; the theme gives no feedback")
            return theme
        }
        guard case .array(let list, _) = profiles else {
            report(.wrongType, "profiles", "expected an array of profile sections, found \(Self.describe(profiles))")
            return theme
        }
        for (i, item) in list.enumerated() {
            let at = "profiles[\(i)]"
            guard case .object = item else {
                report(.wrongType, at, "expected an object with \"name\" and \"feedbacks\", found \(Self.describe(item))")
                continue
            }
            let section = item
            unknownKeys(section, known: ["name", "feedbacks"], at: at)
            guard let name = string(section, "name", at: at + ".name"), let level = FeedbackProfile(rawValue: name) else {
                if case .string(let other, _)? = section["name"] {
                    report(.invalidValue, at + ".name", "\"\(Self.show(other))\" is not a profile section; expected full, quiet or silent")
                } else {
                    report(.missingKey, at + ".name", "a section needs a name: full, quiet or silent")
                }
                continue
            }
            guard case .array(let feedbacks, _)? = section["feedbacks"] else {
                report(.wrongType, at + ".feedbacks", "expected an array of feedbacks, found \(Self.describe(section["feedbacks"]))")
                continue
            }
            for (j, entry) in feedbacks.enumerated() {
                let key = "\(at).feedbacks[\(j)]"
                guard case .object = entry else {
                    report(.wrongType, key, "expected an object with \"event-name\" and \"type\", found \(Self.describe(entry))")
                    continue
                }
                let object = entry
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
    mutating func feedback(_ o: PositionedJSON, at key: String, event: String) -> FeedbackdFeedback? {
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
            let magnitudes = Self.items(o["magnitudes"]).map { Self.number($0) }
            let durations = Self.items(o["durations"]).map { Self.number($0) }
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
            guard FeedbackdLed.isColor(color) else {
                report(.invalidValue, key + ".color", "\"\(Self.show(color))\" is not an LED colour; expected red, green, blue, white or #RRGGBB; entry skipped")
                return nil
            }
            return .led(FeedbackdLed(
                color: color, frequency: whole(o, "frequency", at: key, in: 0...1_000_000, default: 0),
                priority: whole(o, "priority", at: key, in: 0...255, default: 0),
                maxBrightness: whole(o, "max-brightness", at: key, in: 0...100, default: 100, unit: " %")))
        case "dummy":
            unknownKeys(o, known: common + ["duration"], at: key)
            return .dummy(durationMs: whole(o, "duration", at: key, in: 0...Int(Int32.max), default: 0, unit: " ms"))
        default:
            report(.invalidValue, key + ".type", "\"\(Self.show(type))\" is not a feedback type; expected Sound, VibraRumble, VibraPeriodic, VibraPattern, Led or Dummy; entry for \"\(Self.show(event))\" skipped")
            return nil
        }
    }

    // MARK: Values

    mutating func string(_ o: PositionedJSON, _ name: String, at key: String) -> String? {
        guard let value = o[name] else { return nil }
        guard case .string(let text, _) = value else {
            report(.wrongType, key, "expected a string, found \(Self.describe(value))")
            return nil
        }
        return text
    }

    mutating func milliseconds(_ o: PositionedJSON, _ name: String, at key: String, default fallback: Int) -> Int {
        whole(o, name, at: key, in: 0...HapticPattern.maximumTotalMs, default: fallback, unit: " ms")
    }

    mutating func whole(_ o: PositionedJSON, _ name: String, at key: String, in range: ClosedRange<Int>, default fallback: Int, unit: String = "") -> Int {
        guard let value = o[name] else { return fallback }
        guard let number = Self.number(value), number.rounded() == number, number >= Double(range.lowerBound), number <= Double(range.upperBound) else {
            report(.outOfRange, "\(key).\(name)", "\(Self.show(value)) is not a whole number from \(range.lowerBound) to \(range.upperBound)\(unit); using \(fallback)")
            return fallback
        }
        return Int(number)
    }

    /// 0–1; older themes (feedbackd before 0.1, Debian's default.json among
    /// them) write 16-bit magnitudes such as 32767, read here as a fraction of 65535.
    mutating func magnitude(_ o: PositionedJSON, _ name: String, at key: String, default fallback: Double) -> Double {
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
    mutating func mediaRole(_ o: PositionedJSON, at key: String) -> MediaRole {
        guard let text = string(o, "media-role", at: key) else { return .event }
        if let role = MediaRole(parsing: text) { return role }
        report(.invalidValue, key, "unknown media role \"\(Self.show(text))\"; played as event; expected one of \(MediaRole.names)")
        return .event
    }

    mutating func unknownKeys(_ o: PositionedJSON, known: [String], at key: String?) {
        guard case .object(let members, _) = o else { return }
        for name in Set(members.map(\.key)).sorted() where !known.contains(name) {
            report(.unknownKey, key.map { "\($0).\(name)" } ?? name, "unknown key, ignored; expected one of \(known.joined(separator: ", "))")
        }
    }

    /// An array's items; none for anything else.
    static func items(_ value: PositionedJSON?) -> [PositionedJSON] {
        if case .array(let items, _)? = value { return items }
        return []
    }

    /// A finite number; nil for anything else.
    static func number(_ value: PositionedJSON) -> Double? {
        guard case .number(let d, _) = value, d.isFinite else { return nil }
        return d
    }

    static func describe(_ value: PositionedJSON?) -> String {
        switch value {
        case .string?: "a string"
        case .array?: "an array"
        case .object?: "an object"
        case .null?: "null"
        case .bool?: "a boolean"
        case .number?: "a number"
        case nil: "nothing"
        }
    }

    /// A value for a message as the file wrote it (a string without its quotes), cut short.
    static func show(_ value: PositionedJSON) -> String {
        switch value {
        case .string(let text, _): show(text)
        case .number(let d, _): show(d.isFinite && d.rounded() == d && abs(d) < 1e15 ? "\(Int(d))" : "\(d)")
        case .bool(let b, _): "\(b)"
        case .null: "null"
        case .array, .object: describe(value)
        }
    }

    /// Text for a message, cut short.
    static func show(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(60)) + "…" : text
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
