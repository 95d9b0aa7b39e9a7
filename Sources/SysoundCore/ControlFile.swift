/// One of the plain-text files in the state directory that hold the user's
/// settings. The desktop shell writes them (`echo 1 > $STATE/silent`); so does
/// `sysound silent on`. A missing file means the default value.
package enum ControlFile: String, CaseIterable, Sendable {
    case silent
    case locked
    case volume
    case haptics
    case vibrateOnAlert = "vibrate-on-alert"
    case interrupted
    /// The flash for alerts: on, off or silent.
    case flash

    /// The file name inside the state directory.
    package var fileName: String { rawValue }

    /// Longest content worth reading: anything longer is garbage, not a setting.
    package static let maximumLength = 64

    /// Parses the file's content and stores it into `state`.
    ///
    /// - Throws: `ControlValueError` naming what was read and what is accepted;
    ///   `state` is left unchanged so the last good value stays.
    package func apply(_ content: String, to state: inout SystemState) throws(ControlValueError) {
        switch self {
        case .volume: state.volume = try ControlValue.volume(content)
        case .silent: state.silent = try ControlValue.bool(content)
        case .locked: state.locked = try ControlValue.bool(content)
        case .haptics: state.haptics = try ControlValue.bool(content)
        case .vibrateOnAlert: state.vibrateOnAlert = try ControlValue.bool(content)
        case .interrupted: state.interrupted = try ControlValue.bool(content)
        case .flash: state.flash = try FlashForAlerts(parsing: content)
        }
    }

    /// Sets this file's value in `state` back to its default (the file is missing).
    package func reset(in state: inout SystemState) {
        let d = SystemState.defaults
        switch self {
        case .volume: state.volume = d.volume
        case .silent: state.silent = d.silent
        case .locked: state.locked = d.locked
        case .haptics: state.haptics = d.haptics
        case .vibrateOnAlert: state.vibrateOnAlert = d.vibrateOnAlert
        case .interrupted: state.interrupted = d.interrupted
        case .flash: state.flash = d.flash
        }
    }

    /// The canonical text written for this file's value in `state`.
    package func content(of state: SystemState) -> String {
        switch self {
        case .volume: ControlValue.format(volume: state.volume)
        case .silent: state.silent ? "1" : "0"
        case .locked: state.locked ? "1" : "0"
        case .haptics: state.haptics ? "1" : "0"
        case .vibrateOnAlert: state.vibrateOnAlert ? "1" : "0"
        case .interrupted: state.interrupted ? "1" : "0"
        case .flash: state.flash.rawValue
        }
    }
}

/// A control file or argument whose text is not a value of its kind.
package struct ControlValueError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was read, shortened and with control characters escaped for a log line.
    package var found: String
    /// What would have been accepted.
    package var expected: String

    package var description: String { "read \(found), expected \(expected)" }
}

/// Parsers for the values of control files and of the CLI's state arguments.
package enum ControlValue {
    package static let boolSpelling = "1/0, on/off, true/false or yes/no"

    /// Accepts `1/0`, `on/off`, `true/false`, `yes/no`, in any case, whitespace trimmed.
    package static func bool(_ text: String) throws(ControlValueError) -> Bool {
        switch trimmed(text).lowercased() {
        case "1", "on", "true", "yes": return true
        case "0", "off", "false", "no": return false
        default: throw ControlValueError(found: quoted(text), expected: boolSpelling)
        }
    }

    /// Accepts a decimal number from 0 to 1 (`0.5`), or a percentage (`50%`).
    package static func volume(_ text: String) throws(ControlValueError) -> Double {
        var t = trimmed(text)
        var scale = 1.0
        if t.hasSuffix("%") { t.removeLast(); scale = 100 }
        guard let v = Double(t), v.isFinite, v >= 0, v <= scale else {
            throw ControlValueError(found: quoted(text), expected: "a number from 0 to 1, such as 0.5, or a percentage such as 50%")
        }
        return v / scale
    }

    /// The shortest text that reads back as the same volume.
    package static func format(volume: Double) -> String {
        if volume == 0 { return "0" }
        if volume == 1 { return "1" }
        return "\(volume)"
    }

    /// `text` without leading and trailing spaces, tabs and line breaks.
    package static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[first...last])
    }

    /// A short, printable rendering of untrusted text for messages.
    package static func quoted(_ text: String, limit: Int = 40) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit { out += "…"; break }
            count += 1
            if scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\"" || scalar == "\\" {
                out += scalar.escaped(asASCII: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
