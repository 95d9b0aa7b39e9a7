#if canImport(Glibc)
import Glibc
#endif
import SysoundAudio

/// What an audio output open tried, in words for the message the user gets
/// when nothing opened: the sound server (where it was looked for, and what
/// was there) and ALSA (OpenAL Soft's device, which is ALSA on Linux).
/// OpenAL Soft's and ALSA's own messages are silenced (alsaquiet.c), so this
/// is the one account of the attempt.
struct OutputAttempt {
    let server: SoundServerProbe.Answer
    /// Where the server was looked for (`SoundServerProbe.socketPaths`).
    let paths: [String]?

    /// A daemon's refusal before trying anything else: the server is not there yet.
    var serverOnly: String {
        switch server {
        case .silent:
            "the sound server at \(where_) accepts connections but did not answer within "
                + "\(SoundServerProbe.answerDeadlineMs) ms (stopped or hung?); check it with `pactl info` or restart it"
        default:
            "no sound server accepts connections yet (at \(where_)); start PulseAudio or PipeWire"
        }
    }

    /// Both tries, after OpenAL Soft found no device either.
    var everything: String {
        "tried the sound server: \(serverOutcome); tried ALSA: \(alsaOutcome)"
    }

    private var where_: String { (paths ?? []).joined(separator: ", ") }

    private var serverOutcome: String {
        switch server {
        case .absent: return "none listens at \(where_)"
        case .silent: return "the one at \(where_) did not answer"
        case .answers: return "the one at \(where_) answered but gave no output"
        case .unknown:
            if let drivers = variable("ALSOFT_DRIVERS"), !drivers.isEmpty, paths == nil, variable("PULSE_SERVER") == nil {
                return "not asked (ALSOFT_DRIVERS=\(drivers) leaves it out)"
            }
            if let server = variable("PULSE_SERVER"), !server.isEmpty { return "none answered at PULSE_SERVER=\(server)" }
            return "none found where libpulse looks by default (no XDG_RUNTIME_DIR or PULSE_SERVER: not a desktop session)"
        }
    }

    private func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    private var alsaOutcome: String {
        access("/dev/snd", F_OK) == 0
            ? "no playback device it could open"
            : "no sound card (there is no /dev/snd)"
    }
}
