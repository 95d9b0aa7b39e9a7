import CPulse
import SysoundCore

extension PulseStream {
    /// `pa_stream_new_with_proplist` with `media.role` set: the server's role
    /// policies (module-role-ducking, module-role-cork, WirePlumber's
    /// role-based sinks, a desktop's mute of event sounds) see what the
    /// stream plays. Swift imports no C variadic functions, so the property
    /// is set with `pa_proplist_sets`, not `pa_proplist_setf`.
    static func newStream(
        _ context: OpaquePointer, _ spec: UnsafePointer<pa_sample_spec>, _ map: UnsafePointer<pa_channel_map>,
        role: MediaRole
    ) -> OpaquePointer? {
        guard let props = pa_proplist_new() else { return nil }
        defer { pa_proplist_free(props) }
        pa_proplist_sets(props, PA_PROP_MEDIA_ROLE, role.streamName)
        return pa_stream_new_with_proplist(context, streamName(for: role), spec, map, props)
    }

    /// The stream's name as `pactl list sink-inputs` and mixers show it:
    /// `sysound` for the event stream (as before roles), `sysound (Alarm)` for another.
    static func streamName(for role: MediaRole) -> String {
        role == .event ? "sysound" : "sysound (\(role.streamName))"
    }
}
