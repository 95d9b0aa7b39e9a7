import Logging
import Sysound
import SysoundAudio
import SysoundConfig
import SysoundCore
import SysoundFeedback
import SysoundState

/// Renders sounds offline to a WAV file through OpenAL's loopback device
/// (ALC_SOFT_loopback): the exact mix the engine would send to a speaker.
/// For tests and for machines without audio output.
enum SoundRenderer {
    /// Plays `request` into a file instead of a device, until it ends.
    ///
    /// Nobody hears a rendering, so silent mode and the lock do not apply;
    /// the gains (theme, request, category, system volume) do.
    static func render(
        _ request: PlayRequest, to path: String, configPath: String? = nil, stateDirectory: String? = nil,
        logger: Logger = Logger(label: "sysound")
    ) throws(SoundServiceError) -> WireFields {
        let directory = StateDirectory.resolve(explicit: stateDirectory)
        let volume = ControlFiles(directory: directory).loadAll().state.volume
        let configuration: SysoundConfiguration, theme: Theme
        do throws(ConfigurationError) {
            (configuration, theme, _) = try ServiceSetup.load(configPath: configPath)
        } catch {
            throw SoundServiceError(.configuration, error.description)
        }
        let manager: FeedbackManager
        do throws(AudioError) {
            manager = try ServiceSetup.manager(
                configuration: configuration, theme: theme, stateDirectory: directory, audio: .loopback,
                haptics: nil, settings: .read { SystemState(volume: volume, haptics: false) }, logger: logger)
        } catch {
            throw SoundServiceError(.noDevice, error.description)
        }
        var unlooped = request
        unlooped.loop = false  // a file must end
        let reply = manager.handle(.play(unlooped, wait: false))
        guard case .ok(let fields, _) = reply else {
            if case .error(let code, let message) = reply { throw SoundServiceError(code: code, message: message) }
            throw SoundServiceError(.failed, "no reply")
        }
        do {
            _ = try manager.audio?.renderToFile(path, tailSeconds: 0.05)
        } catch {
            throw SoundServiceError(.badFile, "cannot render to \(path): \(error)")
        }
        manager.audio?.shutdown()
        return fields
    }
}
