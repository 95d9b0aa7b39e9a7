/// Finds the lights under /sys/class/leds as feedbackd does: LEDs udev tags
/// `FEEDBACKD_TYPE=led` (feedbackd's rules tag `*:status`, `*:indicator`,
/// `*:flash`, `*:torch` and a few legacy names), or with such a name where
/// no udev rule ran, or chosen in `[leds] devices`; never those in
/// `[leds] exclude`. An LED without the pattern trigger's `pattern`
/// attribute is skipped (feedbackd 0.8.2 does the same): the kernel would
/// blink nothing. Three single-colour LEDs of one device (red, green and
/// blue) are one RGB light.
package struct LedDiscovery: Sendable {
    package var files: any LedFiles
    package var paths: LedPaths
    package var choice: LedChoice

    package init(files: any LedFiles = SystemLedFiles(), paths: LedPaths = LedPaths(), choice: LedChoice = LedChoice()) {
        self.files = files
        self.paths = paths
        self.choice = choice
    }

    /// What was found: the lights, most capable first, and the LEDs not used.
    package struct Result: Sendable, Equatable {
        package var lights: [LedLight] = []
        package var skipped: [SkippedLed] = []
        /// LEDs that would be used but lack the pattern trigger (no
        /// ledtrig-pattern module, or no udev rule selected it).
        package var missingTrigger: [String] { skipped.filter { $0.why.hasPrefix(LedDiscovery.noPatternPrefix) }.map(\.name) }
    }

    static let noPatternPrefix = "no pattern trigger"
    /// The names feedbackd's udev rules tag, by their function part.
    static let statusFunctions: Set<String> = ["status", "indicator"]
    static let flashFunctions: Set<String> = ["flash", "torch"]

    package func scan() -> Result {
        var result = Result()
        var singles: [LedLight.Channel] = []
        var singleWhy: [String: String] = [:]
        var roles: [String: LedLight.Role] = [:]
        for name in files.names(in: paths.classDirectory) ?? [] {
            let udev = udevProperties(name)
            let tagged = udev["FEEDBACKD_TYPE"] == "led"
            let function = Self.function(of: name)
            let named = Self.statusFunctions.contains(function) || Self.flashFunctions.contains(function)
            let chosen = choice.chooses(name)
            if choice.excludes(name) {
                result.skipped.append(SkippedLed(name: name, why: "excluded by [leds] exclude"))
                continue
            }
            // Listed devices replace feedbackd's choice, as `[haptics] devices` does.
            guard choice.devices.isEmpty ? (tagged || named) : chosen else { continue }
            let why = chosen ? "chosen in [leds] devices" : tagged ? "udev FEEDBACKD_TYPE=led" : "named *:\(function)"
            let maxBrightness = Int(trimmed(files.read(paths.attribute(name, "max_brightness")) ?? "")) ?? 0
            guard maxBrightness > 0 else {
                result.skipped.append(SkippedLed(name: name, why: "max_brightness is 0 or unreadable"))
                continue
            }
            guard files.exists(paths.attribute(name, "pattern")) else {
                let triggers = files.read(paths.attribute(name, "trigger")) ?? ""
                let offered = triggers.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains { $0 == "pattern" || $0 == "[pattern]" }
                let why = offered
                    ? "\(Self.noPatternPrefix) selected (the udev rule's sysound-ledctrl did not run for it)"
                    : "\(Self.noPatternPrefix) in the kernel (load ledtrig-pattern)"
                result.skipped.append(SkippedLed(name: name, why: why))
                continue
            }
            let role: LedLight.Role = Self.flashFunctions.contains(function) ? .flash : .status
            let multiIndex = files.read(paths.attribute(name, "multi_index")).map {
                $0.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
            } ?? []
            if !multiIndex.isEmpty {
                let channel = LedLight.Channel(name: name, color: nil, maxBrightness: maxBrightness, multiIndex: multiIndex)
                result.lights.append(LedLight(name: name, kind: .multicolor, role: role, channels: [channel], why: why))
                continue
            }
            let color = udev["FEEDBACKD_LED_COLOR"].map { $0.lowercased() } ?? Self.color(of: name)
            singles.append(LedLight.Channel(name: name, color: color, maxBrightness: maxBrightness, multiIndex: []))
            singleWhy[name] = why
            roles[name] = role
        }
        // Red, green and blue of one device (the name before its first colon) and role: one RGB light.
        var grouped = Set<String>()
        let groups = Dictionary(grouping: singles) { "\(Self.device(of: $0.name))/\(roles[$0.name]!.rawValue)" }
        for key in groups.keys.sorted() {
            let members = groups[key]!
            let rgb = ["red", "green", "blue"].compactMap { c in members.first { $0.color == c } }
            guard rgb.count == 3 else { continue }
            let device = Self.device(of: rgb[0].name)
            result.lights.append(LedLight(
                name: device.isEmpty ? rgb.map(\.name).joined(separator: "+") : device, kind: .rgb, role: roles[rgb[0].name]!,
                channels: rgb, why: singleWhy[rgb[0].name]! + ", red, green and blue as one light"))
            grouped.formUnion(rgb.map(\.name))
        }
        for channel in singles where !grouped.contains(channel.name) {
            result.lights.append(LedLight(name: channel.name, kind: .single, role: roles[channel.name]!, channels: [channel], why: singleWhy[channel.name]!))
        }
        result.lights.sort { ($0.kind, $0.name) < ($1.kind, $1.name) }
        return result
    }

    /// udev's properties of the LED (`E:KEY=value` lines of `+leds:NAME`).
    func udevProperties(_ name: String) -> [String: String] {
        guard let text = files.read(paths.udevRecord(name)) else { return [:] }
        var properties: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("E:") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            properties[String(line[line.index(line.startIndex, offsetBy: 2)..<eq])] = String(line[line.index(after: eq)...])
        }
        return properties
    }

    /// `devicename:color:function` → function (the part after the last colon).
    static func function(of name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return "" }
        return String(name[name.index(after: colon)...])
    }

    /// `devicename:color:function` → devicename.
    static func device(of name: String) -> String {
        guard let colon = name.firstIndex(of: ":") else { return name }
        return String(name[..<colon])
    }

    /// The LED's colour from its name: the colour part, else a colour name
    /// anywhere in it (feedbackd's probe: `lp5523:red`, `status-led:green`).
    static func color(of name: String) -> String? {
        let parts = name.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 3, LedColor.named[parts[1].lowercased()] != nil { return parts[1].lowercased() }
        let lower = name.lowercased()
        return ["red", "green", "blue", "white"].first { lower.contains($0) }
    }

    private func trimmed(_ text: String) -> String {
        String(text.filter { !$0.isWhitespace })
    }
}

/// `[leds] devices` and `exclude`: LED names or shell patterns (fnmatch).
/// Devices listed are the only ones used; none listed: feedbackd's choice.
package struct LedChoice: Sendable, Equatable {
    package var devices: [String]
    package var exclude: [String]

    package init(devices: [String] = [], exclude: [String] = []) {
        self.devices = devices
        self.exclude = exclude
    }

    func chooses(_ name: String) -> Bool { devices.contains { Self.matches($0, name) } }
    func excludes(_ name: String) -> Bool { exclude.contains { Self.matches($0, name) } }

    static func matches(_ pattern: String, _ name: String) -> Bool {
        fnmatch(pattern, name, 0) == 0
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
