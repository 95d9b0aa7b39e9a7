import SysoundAudio
import SysoundPlatform
import SysoundCore
import SysoundFeedback
import SysoundLeds

/// Why feedback ended: feedbackd's FbdEventEndReason, as FeedbackEnded sends it.
enum EndReason: UInt32 {
    /// Every feedback ran its natural length.
    case natural = 0
    /// The timeout of TriggerFeedback expired.
    case expired = 1
    /// EndFeedback, or the caller left the bus.
    case explicit = 2
    /// The theme has nothing for the event (feedbackd's -1, sent as u).
    case notFound = 0xFFFF_FFFF
}

/// One TriggerFeedback in progress: the voice it started (if any), who asked,
/// and the timers that end it.
struct RunningEvent {
    var voice: VoiceID?
    var sender: String?
    /// Its sound has still to end (the engine's end event, heard).
    var soundPending = false
    /// Its vibration's length has still to pass.
    var hapticPending = false
    /// Ends the vibration's wait.
    var hapticTimer: EventSource?
    /// The timeout of a looping event (> 0 s).
    var expiry: EventSource?
    /// The theme's LED it shows: it never ends by itself (feedbackd's LED
    /// feedback), so the event runs until ended, expired or its caller leaves.
    var led: LedShowID?
}

/// The events of the D-Bus face, by id. Lives on the loop's thread.
struct RunningEvents {
    private(set) var byID: [UInt32: RunningEvent] = [:]
    private var lastID: UInt32 = 0
    /// Running at once, beyond which TriggerFeedback answers LimitsExceeded:
    /// a client firing thousands of triggers cannot grow the daemon.
    static let capacity = 512

    var isFull: Bool { byID.count >= Self.capacity }
    var count: Int { byID.count }

    /// A fresh id: never 0 (feedbackd's "no event"), never one still running.
    mutating func nextID() -> UInt32 {
        repeat { lastID = lastID &+ 1 } while lastID == 0 || byID[lastID] != nil
        return lastID
    }

    subscript(id: UInt32) -> RunningEvent? {
        get { byID[id] }
        set { byID[id] = newValue }
    }

    mutating func remove(_ id: UInt32) -> RunningEvent? { byID.removeValue(forKey: id) }

    func ids(of sender: String) -> [UInt32] { byID.filter { $0.value.sender == sender }.map(\.key) }
    func hasEvents(of sender: String) -> Bool { byID.values.contains { $0.sender == sender } }
}
