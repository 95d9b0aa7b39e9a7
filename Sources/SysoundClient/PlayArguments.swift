import SysoundCore

/// `play NAME [--state-dir DIR] [--app ID]`: the one command `sysound`
/// answers without the full CLI, and hands to `sysound-play` (argv as it
/// came) when no daemon answers. Both read it here, so the hand-over always
/// has the shape the player takes.
package struct PlayArguments: Equatable, Sendable {
    package var name: String
    package var stateDirectory: String?
    package var app: String?

    package init(name: String, stateDirectory: String? = nil, app: String? = nil) {
        self.name = name
        self.stateDirectory = stateDirectory
        self.app = app
    }

    /// Reads the `count` arguments after the program's name, `argument(i)`
    /// being the i-th (0: `play`). Each option at most once; anything else,
    /// or an app id that is not one (whose message is the full CLI's), is
    /// nil: the full CLI takes it. Read by index, not as an array: the fast
    /// path instantiates no [String] (see sysound's main.swift).
    package static func parse(count: Int, _ argument: (Int) -> String?) -> PlayArguments? {
        guard count >= 2, count % 2 == 0, count <= 6, argument(0) == "play",
              let name = argument(1), !name.hasPrefix("-")
        else { return nil }
        var play = PlayArguments(name: name)
        for i in stride(from: 2, to: count, by: 2) {
            guard let value = argument(i + 1) else { return nil }
            switch argument(i) {
            case "--state-dir" where play.stateDirectory == nil: play.stateDirectory = value
            case "--app" where play.app == nil && PlayRequest.isValidApp(value): play.app = value
            default: return nil
            }
        }
        return play
    }
}
