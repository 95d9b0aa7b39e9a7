import Glibc
import SysoundCore

extension WireErrorCode {
    /// The exit status (sysexits.h) of a command the daemon or the engine
    /// refused with this error: the table `sysound --help` documents. Both
    /// `sysound` and `sysound-cli` exit with it.
    package var exitStatus: Int32 {
        switch self {
        case .badRequest, .badValue, .tooLarge, .version: EX_USAGE
        case .unknownSound, .unknownPreset, .unknownEvent: EX_DATAERR
        case .badFile: EX_NOINPUT
        case .noDevice: EX_UNAVAILABLE
        case .busy: EX_TEMPFAIL
        case .denied: EX_NOPERM
        default: EX_SOFTWARE
        }
    }
}
