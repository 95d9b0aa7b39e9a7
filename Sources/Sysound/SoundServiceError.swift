import SysoundClient
import SysoundCore

/// Why a request to the service failed: a kind to decide on, and a message
/// that tells a person what happened and what to do.
///
/// A sound that the user's settings silence is not an error: its
/// ``Playback`` says why (``Playback/reason``).
public struct SoundServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for a program to decide on.
    public enum Kind: Sendable, Equatable, Hashable {
        /// No sound of the theme has this name.
        case unknownSound
        /// No haptic preset has this name.
        case unknownPreset
        /// A value is out of range or of the wrong kind (a gain of 2, a volume of -1).
        case badValue
        /// A sound file could not be read or decoded.
        case badFile
        /// No audio output or haptic device to do this with.
        case noDevice
        /// The daemon does not serve this user.
        case denied
        /// The daemon is overloaded; try again in a moment.
        case busy
        /// Only the daemon can do this (a looping sound), and none runs.
        case needsDaemon
        /// The mode is ``SoundService/Mode/daemon`` and no daemon answers.
        case noDaemon
        /// The daemon was reached but did not answer properly (it stopped, or
        /// did not answer in time); the request may or may not have been carried out.
        case daemonTrouble
        /// The embedded engine's configuration could not be loaded.
        case configuration
        /// Anything else: a failure of the system or a bug; the message says more.
        case failed
    }

    /// What went wrong.
    public var kind: Kind
    /// What happened and what to do, in words.
    public var message: String

    /// An error of this kind with this message.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// An `error` reply or a refusal of the embedded engine, by its wire code.
    package init(code: WireErrorCode, message: String) {
        let kind: Kind = switch code {
        case .unknownSound: .unknownSound
        case .unknownPreset: .unknownPreset
        case .badValue, .badRequest, .tooLarge: .badValue
        case .badFile: .badFile
        case .noDevice: .noDevice
        case .denied: .denied
        case .busy: .busy
        case WireErrorCode(rawValue: "no-daemon"): .needsDaemon
        default: .failed
        }
        self.init(kind, message)
    }

    /// The daemon could not be reached, or its answer was lost.
    init(_ error: ClientError) {
        switch error {
        case .noDaemon, .badPath: self.init(.noDaemon, error.description)
        case .notSent: self.init(.busy, error.description)
        default: self.init(.daemonTrouble, error.description)
        }
    }

    /// The wire code for this error, for `sysound-engine request`'s reply.
    package var code: WireErrorCode {
        switch kind {
        case .unknownSound: .unknownSound
        case .unknownPreset: .unknownPreset
        case .badValue: .badValue
        case .badFile: .badFile
        case .noDevice: .noDevice
        case .denied: .denied
        case .busy: .busy
        case .needsDaemon, .noDaemon: WireErrorCode(rawValue: "no-daemon")
        case .configuration: WireErrorCode(rawValue: "config")
        case .daemonTrouble, .failed: .internal
        }
    }
}
