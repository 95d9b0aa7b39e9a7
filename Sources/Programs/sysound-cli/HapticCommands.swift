import ArgumentParser
import SysoundCore

struct VibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vibrate",
        abstract: "Vibrate a haptic preset or a pattern (obeys the haptics switch, not silent mode).",
        discussion: """
            Presets: light, medium, heavy, soft, rigid, selection, success, warning, error, tap, \
            alarm, and those of the configuration (`sysound list presets`). A pattern is \
            magnitude:milliseconds steps, e.g. --pattern "1.0:20,0:40,0.6:30".
            """)

    @Argument(help: "The preset to vibrate (omit with --pattern).")
    var preset: String?

    @Option(name: .long, help: ArgumentHelp("An ad-hoc pattern of magnitude:ms steps.", valueName: "steps"))
    var pattern: String?

    @Option(name: .long, help: ArgumentHelp("Strength, 0 to 1.", valueName: "level"))
    var intensity: Double = 1

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard (preset == nil) != (pattern == nil) else {
            throw ValidationError("name a preset (sysound vibrate success) or give --pattern, not both")
        }
        if let pattern {
            do { _ = try HapticPattern(parsing: pattern) } catch { throw ValidationError("--pattern: \(error)") }
        }
        guard intensity.isFinite, (0...1).contains(intensity) else {
            throw ValidationError("--intensity \(intensity) is outside 0–1")
        }
    }

    func run() throws {
        let source: VibrateRequest.Source = try pattern.map { .pattern(try HapticPattern(parsing: $0)) } ?? .preset(preset!)
        do {
            let (fields, _, _) = try common.backend.perform(.vibrate(VibrateRequest(source, intensity: intensity)))
            if common.verbose {
                print(fields["outcome"] == FeedbackOutcome.skip.rawValue ? "not vibrated: \(fields["reason"] ?? "?")" : "vibrated")
            }
        } catch {
            throw fail("cannot vibrate", error)
        }
    }
}

struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop one sound (by the id `play --verbose` printed) or every sound and vibration.")

    @Argument(help: ArgumentHelp("The voice id to stop; omit to stop everything.", valueName: "id"))
    var id: String?

    @OptionGroup var common: CommonOptions

    func run() throws {
        do {
            _ = try common.backend.perform(.stop(id.map(StopTarget.voice) ?? .all))
        } catch {
            throw fail("cannot stop", error)
        }
    }
}
