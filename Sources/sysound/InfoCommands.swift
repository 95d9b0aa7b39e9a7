import ArgumentParser
import Sysound
import SysoundConfig

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the user's settings and, if it runs, the daemon's devices and voices.")

    @Flag(name: .long, help: "Print JSON for programs.")
    var json = false

    @OptionGroup var common: CommonOptions

    func run() throws {
        let service = common.service()
        var fields = WireFields()
        let daemon = service.isUsingDaemon
        if daemon, case .ok(let status, _)? = try? service.send(.status) {
            fields = status
        } else {
            let state = service.state
            for control in ControlFile.allCases { fields[control.rawValue] = control.content(of: state) }
        }
        fields["daemon"] = daemon ? "running" : "not running"
        fields["state-dir"] = service.stateDirectory.path
        if json {
            print(JSON.object(fields))
        } else {
            let width = fields.map(\.key.count).max() ?? 0
            for field in fields {
                let pad = String(repeating: " ", count: width - field.key.count)
                print("\(field.key):\(pad) \(Self.human(field.key, field.value))")
            }
        }
    }

    static func human(_ key: String, _ value: String) -> String {
        guard ControlFile(rawValue: key) != nil, key != "volume" else { return value }
        return value == "1" ? "on" : value == "0" ? "off" : value
    }
}

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the theme's sounds (name, duration, category, haptic, aliases) or the haptic presets.")

    enum Kind: String, ExpressibleByArgument, CaseIterable { case sounds, presets }

    @Argument(help: "sounds or presets.")
    var kind: Kind = .sounds

    @Flag(name: .long, help: "Print JSON for programs.")
    var json = false

    @OptionGroup var common: CommonOptions

    func run() throws {
        let reply: Reply
        do {
            reply = try common.service().send(.list(kind == .sounds ? .sounds : .presets))
        } catch {
            throw fail("cannot list \(kind.rawValue)", error)
        }
        guard case .ok(_, let records) = reply else {
            if case .error(let code, let message) = reply { throw fail("cannot list \(kind.rawValue)", .refused(code: code, message: message)) }
            return
        }
        if json {
            print("[" + records.map(JSON.object).joined(separator: ",\n ") + "]")
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

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a configuration and its theme; report every problem with file, line and key.",
        discussion: "Exits 78 if there is any error (warnings alone exit 0).")

    @Argument(help: ArgumentHelp("The configuration file (default: the one the service would use).", valueName: "file"))
    var file: String?

    @Flag(name: .shortAndLong, help: "Also say which file was checked when all is well.")
    var verbose = false

    func run() throws {
        let diagnostics = SysoundCheck.check(configPath: file)
        for d in diagnostics { printError(d.description) }
        if diagnostics.containsErrors {
            throw ExitCode(Exit.configuration)
        }
        if verbose || diagnostics.isEmpty { print("ok: \(file ?? "the configuration") and its theme are valid") }
    }
}

/// Just enough JSON for flat string maps.
enum JSON {
    static func object(_ fields: WireFields) -> String {
        "{" + fields.map { "\(string($0.key)): \(string($0.value))" }.joined(separator: ", ") + "}"
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
