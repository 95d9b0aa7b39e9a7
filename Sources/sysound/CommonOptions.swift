import ArgumentParser
import Sysound

/// Options every command that talks to the service takes.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The state directory (control files and socket).", valueName: "dir"))
    var stateDir: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file for the embedded engine (default: the search order in README).", valueName: "file"))
    var config: String?

    @Flag(name: .shortAndLong, help: "Say what happened and why (device used, reason a sound was silenced).")
    var verbose = false

    @Flag(name: .long, help: "Use the embedded engine even if a daemon runs.")
    var embedded = false

    func service() -> SoundService {
        SoundService(stateDirectory: stateDir, configPath: config, mode: embedded ? .embedded : .automatic)
    }
}

/// Exit codes (sysexits.h), documented in `sysound --help` and the README.
enum Exit {
    static let usage: Int32 = 64
    static let unknownName: Int32 = 65
    static let badFile: Int32 = 66
    static let noDevice: Int32 = 69
    static let software: Int32 = 70
    static let busy: Int32 = 75
    static let denied: Int32 = 77
    static let configuration: Int32 = 78

    static func code(for error: SoundServiceError) -> Int32 {
        switch error.code {
        case .badRequest, .badValue, .tooLarge, .version: usage
        case .unknownSound, .unknownPreset: unknownName
        case .badFile: badFile
        case .noDevice: noDevice
        case .busy: busy
        case .denied: denied
        case WireErrorCode(rawValue: "config"): configuration
        default: software
        }
    }
}

/// Prints an error the way every command does, and exits with its code.
func fail(_ what: String, _ error: SoundServiceError) -> ExitCode {
    printError("sysound: \(what): \(error)")
    return ExitCode(Exit.code(for: error))
}

func printError(_ text: String) {
    var stderr = StandardError()
    print(text, to: &stderr)
}

/// Standard error through write(2): no stdio buffering, no shared FILE*.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        var bytes = Array(string.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { break }
            offset += n
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
