import ArgumentParser
import SysoundCore

/// `sysound flash on|off|silent`: the flash for alerts (the `flash` control file).
struct FlashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flash",
        abstract: "The flash for alerts: alerts, messages, calls and alarms also flash a light (always, or only in silent mode).",
        discussion: """
            A short burst on the flash LED, or on the notification LED where there is none, \
            for people who cannot hear the sound (iOS's LED Flash for Alerts, Android's Flash \
            notifications). `silent` flashes only while silent mode is on. Writes $STATE/flash.
            """)

    enum Action: String, ExpressibleByArgument, CaseIterable { case on, off, silent, status }

    @Argument(help: "on, off, silent or status.")
    var action: Action = .status

    @OptionGroup var common: CommonOptions

    func run() throws {
        let backend = common.backend
        guard action != .status else {
            print(backend.state.flash.rawValue)
            return
        }
        do {
            try backend.set(.flash, to: action.rawValue)
        } catch {
            throw fail("cannot set the flash for alerts", error)
        }
        if common.verbose { print("flash: \(action.rawValue)") }
    }
}
