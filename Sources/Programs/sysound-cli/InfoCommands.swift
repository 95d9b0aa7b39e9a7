import ArgumentParser
import SysoundCLIOptions
import SysoundCore
import SysoundState

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the user's settings and, if it runs, the daemon's devices and voices.")

    @Flag(name: .long, help: "Print JSON for programs.")
    var json = false

    @OptionGroup var common: CommonOptions

    func run() throws {
        let backend = common.backend
        var fields = WireFields()
        var devices: [WireFields] = []
        var leds: [WireFields] = []
        let daemon = backend.daemonIsRunning
        // Without a daemon the one-shot engine answers: it opens the input
        // devices as the daemon would, so the haptic devices and the profile
        // are listed either way.
        // No daemon and no engine: the facts below are found without one.
        if let status = try? backend.perform(.status) {
            fields = status.fields
            devices = status.records.filter { $0["haptic-device"] != nil }
            leds = status.records.filter { $0["led"] != nil }
        } else {
            let state = backend.state
            for control in ControlFile.allCases { fields[control.rawValue] = control.content(of: state) }
        }
        fields["daemon"] = daemon ? "running" : "not running"
        fields["state-dir"] = backend.stateDirectory.path
        // Read here, with or without a daemon: the record lives beside the file.
        fields[Self.lockedBy] = LockOrigin(files: ControlFiles(directory: backend.stateDirectory)).describe()
        if json {
            var object = JSON.object(fields, value: Self.jsonValue)
            object.removeLast()
            let record = { (d: WireFields) in JSON.object(d, value: { k, v in k == "used" ? (v == "1" ? "true" : "false") : JSON.string(v) }) }
            print(object + (fields.isEmpty ? "" : ", ") + "\"haptic-device-list\": [" + devices.map(record).joined(separator: ", ") + "], "
                + "\"led-list\": [" + leds.map(record).joined(separator: ", ") + "]}")
        } else {
            let shown = fields.filter { $0.key != Self.lockedBy }
            let width = shown.map(\.key.count).max() ?? 0
            for field in shown {
                let pad = String(repeating: " ", count: width - field.key.count)
                var text = Self.human(field.key, field.value)
                if field.key == ControlFile.locked.rawValue, let by = fields[Self.lockedBy] { text += " (\(by))" }
                print("\(field.key):\(pad) \(text)")
            }
            // Every force-feedback device, used or why not.
            for d in devices {
                let used = d["used"] == "1" ? "used" : "not used"
                print("force-feedback \(d["haptic-device"] ?? "?"): \(d["name"] ?? "") — \(used): \(d["why"] ?? "")"
                      + (d["effect"].map { ", effect \($0)" } ?? ""))
            }
            // Every LED found: its light, what it shows now, or why it is not used.
            for l in leds {
                guard l["used"] == "1" else {
                    print("led \(l["led"] ?? "?"): not used: \(l["why"] ?? "")")
                    continue
                }
                let colors = (l["colors"] ?? "").split(separator: ",").joined(separator: " ")
                print("led \(l["led"] ?? "?"): \(l["kind"] ?? "") \(l["role"] ?? "") light (\(colors)) — \(l["why"] ?? ""); shows \(l["shows"] ?? "off")"
                      + (l["problem"].map { "; \($0)" } ?? ""))
            }
        }
    }

    /// Where the lock value came from (`logind session 3`, `control file`, `default`).
    static let lockedBy = "locked-by"

    /// Counts and the volume as numbers, the switches as booleans: typed
    /// for programs, whatever the wire carried them as.
    static func jsonValue(_ key: String, _ value: String) -> String {
        if let control = ControlFile(rawValue: key) {
            switch control {
            case .volume: if let volume = Double(value) { return "\(volume)" }
            default: if value == "1" || value == "0" { return value == "1" ? "true" : "false" }
            }
        } else if countFields.contains(key), let count = Int(value) {
            return "\(count)"
        } else if switchFields.contains(key), value == "on" || value == "off" {
            return value == "on" ? "true" : "false"
        }
        return JSON.string(value)
    }

    /// The desktop's switches as the policy uses them (on/off).
    static let switchFields: Set<String> = ["do-not-disturb", "event-sounds", "input-feedback-sounds"]

    /// The status fields that count something.
    static let countFields: Set<String> = ["voices", "playing", "haptic-devices", "leds", "audio-underflows"]

    static func human(_ key: String, _ value: String) -> String {
        guard ControlFile(rawValue: key) != nil, key != "volume" else { return value }
        return value == "1" ? "on" : value == "0" ? "off" : value
    }
}

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the theme's sounds (name, duration, category, haptic, aliases), the haptic presets, or what each D-Bus event does per profile (--dbus).")

    enum Kind: String, ExpressibleByArgument, CaseIterable { case sounds, presets, dbus }

    @Argument(help: "sounds, presets or dbus.")
    var kind: Kind = .sounds

    @Flag(name: .long, help: "List what each D-Bus event does in each profile, through the feedbackd theme (the same as `list dbus`).")
    var dbus = false

    @Option(name: .long, help: ArgumentHelp("With --dbus: a feedbackd theme file instead of the configured one.", valueName: "file"))
    var theme: String?

    @Flag(name: .long, help: "Print JSON for programs.")
    var json = false

    @OptionGroup var common: CommonOptions

    func run() throws {
        if dbus || kind == .dbus {
            // The feedbackd theme is read where the configuration is: in the engine.
            var arguments = ["list-dbus"]
            if let theme { arguments += ["--theme", theme] }
            if let config = common.config { arguments += ["--config", config] }
            if json { arguments.append("--json") }
            do { try Engine.exec(arguments) } catch { throw fail("cannot list D-Bus events", error) }
        }
        let records: [WireFields]
        do {
            records = try common.backend.perform(.list(kind == .sounds ? .sounds : .presets)).records
        } catch {
            throw fail("cannot list \(kind.rawValue)", error)
        }
        if json {
            print("[" + records.map { JSON.object($0) }.joined(separator: ",\n ") + "]")
            return
        }
        let columns = kind == .sounds
            ? ["name", "duration-ms", "category", "haptic", "loopable", "aliases"]
            : ["name", "duration-ms", "pattern"]
        let rows = [columns] + records.map { r in columns.map { r[$0] ?? "" } }
        let widths = columns.indices.map { i in rows.map { $0[i].count }.max() ?? 0 }
        for row in rows {
            let cells = row.indices.map { i in i == row.count - 1 ? row[i] : row[i] + String(repeating: " ", count: widths[i] - row[i].count) }
            print(cells.joined(separator: "  "))
        }
    }
}

/// `check` and `serve` need the configuration and the engines: they run in sysound-engine.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: EngineCommandText.checkAbstract, discussion: EngineCommandText.checkDiscussion)

    @OptionGroup var options: CheckOptions

    func run() throws {
        do { try Engine.exec(Array(CommandLine.arguments.dropFirst())) } catch { throw fail("cannot check", error) }
    }
}

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: EngineCommandText.serveAbstract, discussion: EngineCommandText.serveDiscussion)

    @OptionGroup var options: ServeOptions

    func run() throws {
        do { try Engine.exec(Array(CommandLine.arguments.dropFirst())) } catch { throw fail("cannot serve", error) }
    }
}

/// Just enough JSON for flat string maps.
enum JSON {
    static func object(_ fields: WireFields, value: (String, String) -> String = { string($1) }) -> String {
        "{" + fields.map { "\(string($0.key)): \(value($0.key, $0.value))" }.joined(separator: ", ") + "}"
    }

    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
