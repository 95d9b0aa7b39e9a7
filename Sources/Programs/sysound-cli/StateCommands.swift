import ArgumentParser
import SysoundCore

/// What the state commands (`silent`, `lock`, `haptics`) accept.
enum SwitchAction: String, ExpressibleByArgument, CaseIterable {
    case on, off, toggle, status
}

/// Shared body of the on/off switches: each writes one control file.
protocol SwitchCommand: ParsableCommand {
    static var file: ControlFile { get }
    static var allowsToggle: Bool { get }
    var action: SwitchAction { get }
    var common: CommonOptions { get }
}

extension SwitchCommand {
    static var allowsToggle: Bool { true }

    func validate() throws {
        if action == .toggle && !Self.allowsToggle {
            throw ValidationError("use on, off or status")
        }
    }

    func run() throws {
        let backend = common.backend
        let current = backend.state
        let isOn = Self.file.content(of: current) == "1"
        let wanted: Bool
        switch action {
        case .status:
            print(isOn ? "on" : "off")
            return
        case .on: wanted = true
        case .off: wanted = false
        case .toggle: wanted = !isOn
        }
        do {
            try backend.set(Self.file, to: wanted ? "1" : "0")
        } catch {
            throw fail("cannot set \(Self.file.rawValue)", error)
        }
        if common.verbose || action == .toggle { print("\(Self.file.rawValue): \(wanted ? "on" : "off")") }
    }
}

struct SilentCommand: SwitchCommand {
    static let configuration = CommandConfiguration(
        commandName: "silent",
        abstract: "Silent mode: silences every sound but playback; alerts vibrate instead.",
        discussion: "Turning it on also stops the UI sounds playing now. Writes $STATE/silent.")
    static let file = ControlFile.silent

    @Argument(help: "on, off, toggle or status.")
    var action: SwitchAction = .status
    @OptionGroup var common: CommonOptions
}

struct LockCommand: SwitchCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "The screen lock: silences ambient sounds (alerts and playback still sound).",
        discussion: "Normally written by the lock screen. Writes $STATE/locked.")
    static let file = ControlFile.locked
    static let allowsToggle = false

    @Argument(help: "on, off or status.")
    var action: SwitchAction = .status
    @OptionGroup var common: CommonOptions
}

struct HapticsCommand: SwitchCommand {
    static let configuration = CommandConfiguration(
        commandName: "haptics",
        abstract: "The haptics switch: when off, nothing vibrates (silent mode does not affect it).",
        discussion: "Writes $STATE/haptics.")
    static let file = ControlFile.haptics

    @Argument(help: "on, off, toggle or status.")
    var action: SwitchAction = .status
    @OptionGroup var common: CommonOptions
}

struct VolumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume",
        abstract: "Show or set the system volume that scales every sound (0 mutes all, playback included).",
        discussion: "sysound never changes the volume by itself; this writes $STATE/volume for the user.")

    @Argument(help: ArgumentHelp("The new volume, 0 to 1 (0.5) or a percentage (50%). Omit to show it.", valueName: "level"))
    var level: String?

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if let level {
            do { _ = try ControlValue.volume(level) } catch { throw ValidationError("volume \(error)") }
        }
    }

    func run() throws {
        let backend = common.backend
        guard let level else {
            print(ControlValue.format(volume: backend.state.volume))
            return
        }
        do {
            try backend.set(.volume, to: level)
        } catch {
            throw fail("cannot set the volume", error)
        }
        if common.verbose { print("volume: \(ControlValue.format(volume: backend.state.volume))") }
    }
}

struct InterruptCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interrupt",
        abstract: "Begin or end an interruption (e.g. a phone call).",
        discussion: """
            During an interruption UI sounds are not started and playback pauses. After \
            `end --resumable` paused and held sounds resume; after a plain `end` they are dropped.
            """)

    enum Phase: String, ExpressibleByArgument, CaseIterable { case begin, end }

    @Argument(help: "begin or end.")
    var phase: Phase

    @Flag(name: .long, help: "With end: resume what the interruption paused.")
    var resumable = false

    @OptionGroup var common: CommonOptions

    func validate() throws {
        if resumable && phase == .begin { throw ValidationError("--resumable goes with `end`") }
    }

    func run() throws {
        do {
            try common.backend.interrupt(begin: phase == .begin, resumable: resumable)
        } catch {
            throw fail("cannot \(phase.rawValue) the interruption", error)
        }
    }
}
