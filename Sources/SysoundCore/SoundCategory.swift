/// What a sound means to the user, which decides how the user's settings treat it.
///
/// The semantics are the table of docs/architecture.md, "The behaviour model",
/// from Apple's audio session categories.
/// Choose a category by meaning (a keyboard click is `ambient`, an alarm the
/// user set is `playback`), not by the behaviour it happens to have today.
public enum SoundCategory: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// UI effects: taps, clicks, keyboard. The default.
    case ambient
    /// Non-essential, but other ambient voices hush while it plays.
    case soloAmbient = "solo-ambient"
    /// Something the user should notice; vibrates instead of sounding in silent mode.
    case alert
    /// Explicitly asked for by the user: alarm, ringtone, pronunciation clip.
    case playback

    public var description: String { rawValue }

    /// Silent mode silences everything but sounds the user asked for.
    public var silencedBySilentMode: Bool { self != .playback }

    /// The screen lock silences the same non-essential sounds as silent mode;
    /// alerts still sound so the user notices them.
    public var silencedByLock: Bool { self == .ambient || self == .soloAmbient }

    /// Do not disturb silences notifications and alerts; alarms and
    /// ringtones the user set (`playback`) and UI taps are not affected.
    public var silencedByDoNotDisturb: Bool { self == .alert }

    /// The desktop's "event sounds" are every sound but the ones the user
    /// asked for: GNOME's `event-sounds` false leaves only `playback`.
    public var isEventSound: Bool { self != .playback }

    /// Whether other ambient voices keep their level while this one plays.
    public var mixesWithOthers: Bool { self != .soloAmbient }

    /// Whether a voice of this category keeps going when silent mode turns on
    /// (the theatre case: ambient stops now, the alarm the user set does not).
    public var survivesSilentModeChange: Bool { !silencedBySilentMode || self == .alert }

    /// Rank used when the voice pool is full: the lowest rank is stolen first
    /// (playback > alert > ambient).
    public var voicePriority: Int {
        switch self {
        case .ambient, .soloAmbient: 0
        case .alert: 1
        case .playback: 2
        }
    }

    /// What happens to a request of this category while an interruption
    /// (e.g. a phone call) is active.
    public var interruptionRule: InterruptionRule {
        switch self {
        case .ambient, .soloAmbient: .notStarted
        case .alert, .playback: .deferredUntilResumableEnd
        }
    }

    /// Parses the wire and config spelling, accepting `solo_ambient` and any case.
    public init?(parsing text: String) {
        let normalized = String(text.lowercased().map { $0 == "_" ? "-" : $0 })
        self.init(rawValue: normalized)
    }
}

/// How a category behaves during an interruption.
public enum InterruptionRule: Sendable, Equatable {
    /// Dropped: UI sounds of a moment ago mean nothing after a phone call.
    case notStarted
    /// Held and started (or resumed) only if the interruption ends resumable.
    case deferredUntilResumableEnd
}
