import Logging
import SysoundConfig
import SysoundCore
import SysoundPlatform

/// The running events of the daemon (feedbackd's events table), by id: what
/// the D-Bus face's TriggerFeedback and the socket's `event` start, on the
/// daemon's loop. The manager decides what an event plays (`eventPlan`);
/// this makes its feedbacks and follows them to the event's end.
package final class FeedbackEvents: @unchecked Sendable {
    // @unchecked: used on the loop's thread only.
    let manager: FeedbackManager
    let loop: EventLoop
    let logger: Logger
    private var byID: [UInt32: FeedbackEvent] = [:]
    private var lastID: UInt32 = 0
    /// Told when an event ends, besides its trigger's `onEnd` (`event wait=ID`).
    private var waiters: [UInt32: [(EventEndReason) -> Void]] = [:]
    /// How the latest events ended, so that a wait that comes just after the end still learns why.
    private var recentEnds: [(id: UInt32, reason: EventEndReason)] = []
    static let recentEndsKept = 64

    /// Running at once, beyond which a trigger is refused: a client firing
    /// thousands of triggers cannot grow the daemon.
    package static let capacity = 512

    /// Loads the feedbackd theme the configuration names, if none is loaded.
    package init(manager: FeedbackManager, loop: EventLoop, logger: Logger) {
        self.manager = manager
        self.loop = loop
        self.logger = logger
        if manager.feedbackdTheme == nil { manager.loadFeedbackdTheme() }
    }

    package var isFull: Bool { byID.count >= Self.capacity }
    package var count: Int { byID.count }
    package subscript(id: UInt32) -> FeedbackEvent? { byID[id] }

    /// Starts event `name` for `request`: the feedbackd theme's entry at the
    /// request's level when `themed` and the theme knows it, else the
    /// request's own sound (sysound's sound of that name, or its file).
    /// `onEnd` is called once, on the loop, never before this returns (so
    /// the caller answers with the id first).
    package func trigger(
        _ name: String, _ request: PlayRequest, themed: Bool = true, timeout: EventTimeout, owner: String? = nil,
        onEnd: @escaping (FeedbackEvent, EventEndReason) -> Void
    ) -> FeedbackEvent {
        let plan = themed ? manager.eventPlan(name, request) : nil
        let planned = plan?.feedbacks ?? [.sound(request)]
        let id = nextID()
        let event = FeedbackEvent(
            id: id, name: name, timeout: timeout, level: plan?.level, owner: owner, feedbacks: planned.map(feedback), loop: loop
        ) { [weak self] event, reason in
            self?.ended(event.id, reason)
            onEnd(event, reason)
        }
        byID[id] = event
        do {
            try event.start()
        } catch {
            logger.error("event \(name) (\(id)): its timeout cannot be armed (\(error)); ending it")
            event.end()
        }
        return event
    }

    private func ended(_ id: UInt32, _ reason: EventEndReason) {
        byID[id] = nil
        recentEnds.append((id, reason))
        if recentEnds.count > Self.recentEndsKept { recentEnds.removeFirst() }
        for waiter in waiters.removeValue(forKey: id) ?? [] { waiter(reason) }
    }

    /// Calls `then` with why event `id` ended: once it ends, or at once if
    /// it ended lately; false (and no call) for an id neither running nor recent.
    package func whenEnded(_ id: UInt32, _ then: @escaping (EventEndReason) -> Void) -> Bool {
        if byID[id] != nil {
            waiters[id, default: []].append(then)
            return true
        }
        guard let recent = recentEnds.last(where: { $0.id == id }) else { return false }
        then(recent.reason)
        return true
    }

    /// The feedback that carries out one planned feedback.
    private func feedback(_ planned: PlannedFeedback) -> any EventFeedback {
        switch planned {
        case .sound(let request): SoundFeedback(request: request, manager: manager, loop: loop)
        case .vibration(let pattern, let section, let request):
            VibrationFeedback(pattern: pattern, section: section, request: request, manager: manager, loop: loop)
        case .dummy(let ms): DummyFeedback(durationMs: ms, loop: loop)
        case .led(let led, let event): LedFeedback(led: led, event: event, manager: manager)
        case .flash(let category, let request): FlashFeedback(category: category, request: request, manager: manager)
        }
    }

    /// Ends event `id` now (`explicit`); false when no such event runs.
    @discardableResult
    package func end(_ id: UInt32) -> Bool {
        guard let event = byID[id] else { return false }
        event.end()
        return true
    }

    /// Ends every event of `owner` (it left the bus); how many.
    @discardableResult
    package func endAll(of owner: String) -> Int {
        let ids = byID.values.filter { $0.owner == owner }.map(\.id)
        ids.forEach { end($0) }
        return ids.count
    }

    /// Ends every running event (the daemon stops, the bus went away).
    package func endAll() {
        byID.keys.sorted().forEach { end($0) }
    }

    package func hasEvents(of owner: String) -> Bool { byID.values.contains { $0.owner == owner } }

    /// A fresh id: never 0 (feedbackd's "no event"), never one still running.
    private func nextID() -> UInt32 {
        repeat { lastID = lastID &+ 1 } while lastID == 0 || byID[lastID] != nil
        return lastID
    }
}
