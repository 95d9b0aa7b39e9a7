/// Identifies one sound started by `AudioEngine.play`, and names it on the
/// wire (`id=`, `stop ID`, `wait ID`, feedbackd's events). A slot is reused by
/// later voices; the serial tells a stale ID from the voice now in the slot.
package struct VoiceID: Hashable, Sendable, CustomStringConvertible {
    package let slot: Int
    /// The voice's start order (mod 2³²): unique for the engine's life, also
    /// across device reopenings.
    package let serial: UInt32
    /// The engine's role: which of the role engines (AudioRoles) plays it.
    package let role: MediaRole

    package init(slot: Int, serial: UInt32, role: MediaRole = .event) {
        self.slot = slot
        self.serial = serial
        self.role = role
    }

    /// The same voice as played by the engine of `role`.
    package func of(_ role: MediaRole) -> VoiceID { VoiceID(slot: slot, serial: serial, role: role) }

    package var description: String { role == .event ? "voice \(slot).\(serial)" : "voice \(slot).\(serial) (\(role))" }
}

extension VoiceID {
    /// The text form on the wire: `slot.serial` for the event stream's voices
    /// (as before roles), `slot.serial.role` for another role's (`3.17.alarm`).
    package var wireID: String { role == .event ? "\(slot).\(serial)" : "\(slot).\(serial).\(role.rawValue)" }

    /// Parses the wire form (in place: no array of parts for a play's id).
    package init?(_ text: String) {
        guard let dot = text.firstIndex(of: "."), let slot = Int(text[..<dot]), slot >= 0 else { return nil }
        let rest = text[text.index(after: dot)...]
        let serialEnd = rest.firstIndex(of: ".") ?? rest.endIndex
        guard let serial = UInt32(rest[..<serialEnd]) else { return nil }
        let role = serialEnd == rest.endIndex ? .event : MediaRole(rawValue: String(rest[rest.index(after: serialEnd)...]))
        guard let role else { return nil }
        self.init(slot: slot, serial: serial, role: role)
    }
}
