/// Which output the audio engine plays through (`[audio] output`).
package enum AudioBackend: String, CaseIterable, Sendable {
    /// sysound's own PulseAudio stream when a PulseAudio-protocol server
    /// (PulseAudio, pipewire-pulse) answers, else OpenAL Soft's own device.
    case auto
    /// sysound's own PulseAudio stream, fed from OpenAL Soft's loopback
    /// device: written only while a sound plays. Fails without a server.
    case pulse
    /// OpenAL Soft's own output device (its PulseAudio or ALSA backend),
    /// which keeps its buffer full of mixed silence.
    case openal

    /// The allowed values as a config file spells them, for messages.
    package static var names: String {
        let quoted = allCases.map { "\"\($0.rawValue)\"" }
        return quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }
}
