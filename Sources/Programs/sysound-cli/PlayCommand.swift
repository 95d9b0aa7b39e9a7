import ArgumentParser
import SysoundCore

struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a sound of the theme, unless the user's settings silence it.",
        discussion: """
            NAME is a sound of the theme (tap, notification, ...), an alias, or a freedesktop \
            sound name (button-pressed, dialog-error, ...). A sound silenced by silent mode, the \
            screen lock or the volume is not an error: exit 0 (see why with --verbose).
            """)

    @Argument(help: "The sound to play (omit with --file).")
    var name: String?

    @Option(name: .long, help: ArgumentHelp("Play this sound file instead of a named sound.", valueName: "path"))
    var file: String?

    @Option(name: .long, help: ArgumentHelp("ambient, solo-ambient, alert or playback (default: the sound's own).", valueName: "category"))
    var category: String?

    @Option(name: .long, help: ArgumentHelp("The sound server's media.role of its stream: event, alarm, ringtone, notification, ... (default: the sound's own, else alarm for playback and event for the rest).", valueName: "role"))
    var role: String?

    @Option(name: .long, help: ArgumentHelp("Level relative to the theme's, 0 to 1.", valueName: "gain"))
    var gain: Double = 1

    @Option(name: .long, help: ArgumentHelp("Playback rate and pitch, 0.5 to 2.", valueName: "rate"))
    var rate: Double = 1

    @Flag(name: .long, help: "Lower other sounds while this one plays (playback category).")
    var duck = false

    @Flag(name: .long, help: "Loop a loopable sound (alarm, ringtone) until `sysound stop`; needs the daemon.")
    var loop = false

    @Flag(name: .long, help: "Return when the sound has ended (the embedded engine always waits).")
    var wait = false

    @Flag(name: .long, help: "Do not start the sound's paired vibration.")
    var noHaptic = false

    @Option(name: .long, help: ArgumentHelp("Play as this app: its [apps.\"ID\"] level in sysound.toml applies, and `sysound status` lists it.", valueName: "id"))
    var app: String?

    @Option(name: .long, help: ArgumentHelp("Render the sound into this WAV file instead of playing it.", valueName: "file"))
    var to: String?

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard (name == nil) != (file == nil) else {
            throw ValidationError("name a sound (sysound play tap) or give --file PATH, not both")
        }
        if let category, SoundCategory(parsing: category) == nil {
            throw ValidationError("unknown category \"\(category)\"; use ambient, solo-ambient, alert or playback")
        }
        if let role, MediaRole(parsing: role) == nil {
            throw ValidationError("unknown media role \"\(role)\"; use one of \(MediaRole.names)")
        }
        guard gain.isFinite, PlayRequest.gainRange.contains(gain) else {
            throw ValidationError("--gain \(gain) is outside 0–1; a request can quiet a sound, never boost it")
        }
        guard rate.isFinite, PlayRequest.rateRange.contains(rate) else {
            throw ValidationError("--rate \(rate) is outside 0.5–2")
        }
        // The embedded engine lives in a one-shot process that `sysound stop`
        // cannot reach: a loop there could only end at its time limit.
        if loop && common.embedded && to == nil {
            throw ValidationError("--loop cannot be used with --embedded: only the daemon can stop a loop later; drop --embedded and start the daemon (`systemctl --user start sysound` or `sysound serve`)")
        }
        if loop && wait && to == nil {
            throw ValidationError("--loop and --wait exclude each other: a loop ends only with `sysound stop`, so --wait would never return; drop --wait")
        }
        if let app, !PlayRequest.isValidApp(app) {
            throw ValidationError("--app \(ControlValue.quoted(app)) is not an app id: use 1 to \(PlayRequest.maximumAppLength) printable bytes, e.g. org.example.App")
        }
    }

    func run() throws {
        let source: PlayRequest.Source = file.map { .file($0) } ?? .name(name!)
        let label = file ?? name!
        let request = PlayRequest(
            source, category: category.flatMap(SoundCategory.init(parsing:)), gain: gain, rate: rate,
            duck: duck, loop: loop, haptic: !noHaptic, app: app, role: role.flatMap(MediaRole.init(parsing:)))
        let backend = common.backend
        if let to {
            do {
                let fields = try backend.render(request, to: to)
                if common.verbose { print("\(label): rendered to \(to) (\(fields["duration-ms"] ?? "?") ms)") }
            } catch {
                throw fail("cannot render \(label)", error)
            }
            return
        }
        do {
            // The embedded engine waits for the sound to end by itself.
            let (fields, _, route) = try backend.perform(.play(request, wait: wait))
            if common.verbose { print(describe(label, fields, route: route)) }
        } catch {
            throw fail("cannot play \(label)", error)
        }
    }

    func describe(_ label: String, _ fields: WireFields, route: Backend.Route) -> String {
        let engine: String = switch route {
        case .daemon(let socket): "daemon at \(socket)"
        case .engine: "embedded engine (no daemon running)"
        }
        var line: String
        switch fields["outcome"].flatMap(FeedbackOutcome.init(rawValue:)) {
        case .skip?, .vibrateInstead?:
            let reason = fields["reason"].flatMap(SkipReason.init(rawValue:))
            line = "\(label): not played: \(reason?.explanation ?? "silenced") (\(fields["reason"] ?? "?"))"
        case .deferred?:
            line = "\(label): held until the interruption ends"
        default:
            line = "\(label): played on \"\(fields["device"] ?? "?")\" (\(fields["category"] ?? "?"), \(fields["duration-ms"] ?? "?") ms)"
        }
        if let haptic = fields["haptic"] {
            line += "; vibrated \(haptic)"
        } else if let skipped = fields["haptic-skipped"] {
            let reason = HapticSkipReason(rawValue: skipped)
            line += "; no vibration: \(reason?.explanation ?? "skipped") (\(skipped))"
        } else if let problem = fields["haptic-problem"] {
            line += "; vibration failed: \(problem)"
        }
        return line + " via the \(engine)"
    }
}
