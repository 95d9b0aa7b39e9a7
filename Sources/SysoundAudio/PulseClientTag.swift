/// Marks this process's PulseAudio clients with `sysound.engine = "openal-soft"`
/// so a sound server can tell the engine's stream apart from others.
///
/// Why: on PipeWire (pipewire-pulse) a PulseAudio client may not ask for less
/// than `pulse.min.req`/`pulse.min.quantum` (256 frames at 48 kHz by default,
/// 1024 in a VM), so the engine's 128 × 2 frames become a 256-frame quantum
/// and a 768-frame buffer. The drop-in `config/pipewire-pulse.conf.d/` lowers
/// those floors for clients carrying this property (`pulse.rules`). OpenAL
/// Soft 1.19 names its client after the process binary and offers no way to
/// add properties, so the mark goes through libpulse's `PULSE_PROP`, which
/// every `pa_context_new` reads — also the one of a reopen after a device loss,
/// so it is set once, before any thread (`AudioProcess.prepare`), and stays
/// for the life of the process. It only lowers a floor: a stream of the same
/// process that asks for more latency still gets it. On PulseAudio the
/// property is inert. The engine's own stream (PulseStream) carries the same
/// mark in its context's property list, so the drop-in serves it too.
enum PulseClientTag {
    static let key = "sysound.engine"
    static let value = "openal-soft"
    /// `PULSE_PROP` with the property added, or nil when it already names the key.
    static func merged(into existing: String) -> String? {
        if existing.split(whereSeparator: \.isWhitespace).contains(where: { $0.hasPrefix(key + "=") }) { return nil }
        let mark = "\(key)=\(value)"
        return existing.allSatisfy(\.isWhitespace) ? mark : existing + " " + mark
    }
}
