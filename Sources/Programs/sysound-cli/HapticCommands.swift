import ArgumentParser
import SysoundCore
import SysoundCLIOptions
import SysoundProgramOutput

struct VibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vibrate",
        abstract: "Vibrate a haptic preset, a pattern, an Android composition or a Core Haptics (AHAP) file (obeys the haptics switch, not silent mode).",
        discussion: """
            Presets: light, medium, heavy, soft, rigid, selection, success, warning, error, tap, \
            alarm, Android's moments (confirm, reject, toggle-on, keyboard-press, …), and those of \
            the configuration (`sysound list presets`). A pattern is magnitude:milliseconds steps, \
            e.g. --pattern "1.0:20,0:40,0.6:30". A composition is Android's primitives (click, \
            tick, low-tick, thud, spin, quick-rise, slow-rise, quick-fall), each with an optional \
            scale and delay, e.g. --compose "click,tick:0.5@40,quick-rise". --ahap plays an AHAP \
            file's transient and continuous events, intensity curves and AudioCustom sounds. \
            Compositions and AHAP files are rendered for the motor at hand (docs/haptics.md).
            """)

    @Argument(help: "The preset to vibrate (omit with --pattern, --compose or --ahap).")
    var preset: String?

    @Option(name: .long, help: ArgumentHelp("An ad-hoc pattern of magnitude:ms steps.", valueName: "steps"))
    var pattern: String?

    @Option(name: .long, help: ArgumentHelp("Android primitives: NAME[:SCALE][@DELAY_MS],…", valueName: "primitives"))
    var compose: String?

    @Option(name: .long, help: ArgumentHelp("A Core Haptics pattern file (AHAP).", valueName: "file"))
    var ahap: String?

    @Option(name: .long, help: ArgumentHelp("Strength, 0 to 1.", valueName: "level"))
    var intensity: Double = 1

    @OptionGroup var common: CommonOptions

    func validate() throws {
        guard [preset, pattern, compose, ahap].compactMap({ $0 }).count == 1 else {
            throw ValidationError("name a preset (sysound vibrate success) or give one of --pattern, --compose, --ahap")
        }
        if let pattern {
            do { _ = try HapticPattern(parsing: pattern) } catch { throw ValidationError("--pattern: \(error)") }
        }
        if let compose {
            do { _ = try HapticComposition(parsing: compose) } catch { throw ValidationError("--compose: \(error)") }
        }
        guard intensity.isFinite, (0...1).contains(intensity) else {
            throw ValidationError("--intensity \(intensity) is outside 0–1")
        }
    }

    func run() throws {
        let source: VibrateRequest.Source
        if let pattern {
            source = .pattern(try HapticPattern(parsing: pattern))
        } else if let compose {
            source = .score(try HapticComposition(parsing: compose).score)
        } else if let ahap {
            do {
                source = .score(try AHAPReader.read(file: ahap).score)
            } catch {
                // A file that cannot be read, or a pattern that cannot be played
                // (`sysound check FILE.ahap` lists every problem).
                printError("sysound: cannot vibrate \(ahap): \(error)")
                throw ExitCode(Exit.badFile)
            }
        } else {
            source = .preset(preset!)
        }
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
