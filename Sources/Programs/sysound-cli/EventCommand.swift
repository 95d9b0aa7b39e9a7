import ArgumentParser
import SysoundCore

/// `sysound event NAME`: what `fbcli -E NAME` does over D-Bus, over the
/// socket, so it works without a session bus.
struct EventCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "event",
        abstract: "Trigger an event of the feedbackd theme (as fbcli -E does), and say what it played.",
        discussion: """
            NAME is an event of the feedbackd theme in use (message-new-instant, \
            phone-incoming-call, ...; `sysound list --dbus` lists them), played at the \
            user's level as a D-Bus client's would be; an event the theme does not know \
            plays sysound's sound of that name. --timeout -1 runs each feedback once, 0 \
            repeats them until `sysound event --end ID`, N repeats them for N seconds and \
            lets the last round finish. Prints the event's id and what played (sound, \
            vibration, LED, dummy) or why not. Needs the daemon. An event neither theme \
            knows exits 65; one with nothing at the user's level (silent mode) exits 0.
            """)

    @Argument(help: "The event to trigger (omit with --end).")
    var name: String?

    @Option(name: .long, help: ArgumentHelp("-1: once (default); 0: until ended; N: repeat for N seconds.", valueName: "seconds"))
    var timeout: Int32 = -1

    @Flag(name: .long, help: "Return when the event has ended, and say why (natural, expired, explicit).")
    var wait = false

    @Option(name: .long, help: ArgumentHelp("Trigger as this app: its levels apply, as for a D-Bus app_id.", valueName: "id"))
    var app: String?

    @Option(name: .long, help: ArgumentHelp("End the running event with this id (as EndFeedback).", valueName: "id"))
    var end: UInt32?

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard (name == nil) != (end == nil) else {
            throw ValidationError("name an event (sysound event message-new-instant) or give --end ID, not both")
        }
        if let name, name.isEmpty { throw ValidationError("the event name is empty; name one such as message-new-instant") }
        let range = EventRequest.timeoutRange
        guard range.contains(timeout) else {
            throw ValidationError("--timeout \(timeout) is outside \(range.lowerBound)…\(range.upperBound): use -1 (once), 0 (until ended) or a number of seconds")
        }
        if timeout == 0 && wait {
            throw ValidationError("--timeout 0 and --wait exclude each other: the event repeats until `sysound event --end ID`, so --wait would never return; drop --wait")
        }
        if end != nil && (wait || timeout != -1 || app != nil) {
            throw ValidationError("--end takes no --timeout, --wait or --app")
        }
        if let end, end == 0 { throw ValidationError("--end 0 is no event id; use the id `sysound event` printed") }
        if let app, !PlayRequest.isValidApp(app) {
            throw ValidationError("--app \(ControlValue.quoted(app)) is not an app id: use 1 to \(PlayRequest.maximumAppLength) printable bytes, e.g. org.example.App")
        }
    }

    func run() throws {
        let backend = common.backend
        if let end {
            do {
                _ = try backend.perform(.event(.end(end)))
                print("event \(end): ended")
            } catch {
                throw fail("cannot end event \(end)", error)
            }
            return
        }
        let name = name!
        let fields: WireFields
        do {
            fields = try backend.perform(.event(.trigger(name: name, timeout: timeout, app: app))).fields
        } catch {
            throw fail("cannot trigger \(name)", error)
        }
        print(Self.describe(name, fields))
        // Known to the theme with nothing at this level is the user's settings at work, as a silenced play is.
        let failed = fields.contains { $0.key.hasSuffix("-failed") }
        if fields["outcome"] == "not-found" && (failed || fields["level"] == nil) {
            throw fail("cannot trigger \(name)", CLIFailure(code: .unknownSound, message: "neither the feedbackd theme nor sysound's theme has \(ControlValue.quoted(name)) (`sysound list --dbus` lists the theme's events)"))
        }
        guard wait, let id = fields["id"].flatMap(UInt32.init) else { return }
        do {
            let ended = try backend.performWaiting(.event(.wait(id)))
            print("event \(id): ended (\(ended["reason"] ?? "?"))")
        } catch {
            throw fail("cannot wait for event \(id)", error)
        }
    }

    /// One line: `message-new-instant (event 3): sound message-new-instant; vibration 1:40`.
    static func describe(_ name: String, _ fields: WireFields) -> String {
        var parts: [String] = []
        for field in fields where !["id", "outcome", "timeout", "level"].contains(field.key) {
            if field.key.hasSuffix("-skipped") {
                parts.append("no \(field.key.dropLast(8)): \(field.value)")
            } else if field.key.hasSuffix("-failed") {
                parts.append("\(field.key.dropLast(7)) failed: \(field.value)")
            } else {
                parts.append("\(field.key) \(field.value)")
            }
        }
        let what = parts.isEmpty ? "nothing" : parts.joined(separator: "; ")
        let state = switch fields["outcome"] {
        case "running": fields["timeout"] == "0" ? ", running until ended" : ""
        case "ended": ", nothing plays"
        default: fields["level"].map { ", nothing at the \($0) level (not found)" } ?? ", not found"
        }
        return "\(name) (event \(fields["id"] ?? "?")): \(what)\(state)"
    }
}
