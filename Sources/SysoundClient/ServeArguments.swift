/// `serve [--config FILE] [--state-dir DIR] [--input-dir DIR] [-v]`: the
/// unit's `ExecStart`, which `sysound` hands to `sysound-engine serve` as it
/// came, and which the engine reads without its argument parser: under socket
/// activation the session's first sound waits for both starts. Each option at
/// most once (`--name VALUE` or `--name=VALUE`), its value not starting with
/// `-`; anything else — help, an unknown option — is nil, and the full CLI
/// takes it with its messages. Read by index, as `PlayArguments`.
package struct ServeArguments: Equatable, Sendable {
    package var config: String?
    package var stateDirectory: String?
    package var inputDirectory = ServeArguments.defaultInputDirectory

    /// Where force-feedback devices appear unless `--input-dir` says otherwise.
    package static let defaultInputDirectory = "/dev/input"

    package init(config: String? = nil, stateDirectory: String? = nil, inputDirectory: String = ServeArguments.defaultInputDirectory) {
        self.config = config
        self.stateDirectory = stateDirectory
        self.inputDirectory = inputDirectory
    }

    /// Reads the `count` arguments after the program's name, `argument(i)`
    /// being the i-th (0: `serve`).
    package static func parse(count: Int, _ argument: (Int) -> String?) -> ServeArguments? {
        guard count >= 1, argument(0) == "serve" else { return nil }
        var serve = ServeArguments()
        var seen: Set<String> = []
        var i = 1
        while i < count {
            guard let word = argument(i) else { return nil }
            i += 1
            if word == "-v" || word == "--verbose" { continue }
            let option: Substring, value: String
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                option = word[..<equals]
                value = String(word[word.index(after: equals)...])
            } else {
                guard i < count, let next = argument(i) else { return nil }
                option = word[...]
                value = next
                i += 1
            }
            guard !value.isEmpty, !value.hasPrefix("-"), seen.insert(String(option)).inserted else { return nil }
            switch option {
            case "--config": serve.config = value
            case "--state-dir": serve.stateDirectory = value
            case "--input-dir": serve.inputDirectory = value
            default: return nil
            }
        }
        return serve
    }
}
