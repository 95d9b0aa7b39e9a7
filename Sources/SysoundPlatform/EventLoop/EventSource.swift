import CSystemd

/// Lets a source's own handler reach the source (a repeating timer re-arms itself).
final class SourceHolder {
    weak var source: EventSource?
}

/// Keeps a one-shot source alive until its handler lets it go (`EventLoop.addOneShot`).
final class OwnedSource {
    var source: EventSource?
}

/// One sd-event source; removed from its loop by `cancel` or when released.
/// Loop thread only.
package final class EventSource {
    let pointer: OpaquePointer
    private var cancelled = false

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { cancel() }

    /// Disables and frees the source (`sd_event_source_disable_unref`); its
    /// handler is released. Idempotent.
    package func cancel() {
        guard !cancelled else { return }
        cancelled = true
        sd_event_source_disable_unref(pointer)
    }

    /// Arms a timer source to fire once at `deadline` (CLOCK_MONOTONIC µs).
    package func schedule(at deadline: UInt64) {
        guard !cancelled else { return }
        sd_event_source_set_time(pointer, deadline)
        sd_event_source_set_enabled(pointer, Int32(SD_EVENT_ONESHOT))
    }

    /// Turns the source on (or, for a timer, one-shot again) or off.
    package func setEnabled(_ on: Bool) {
        guard !cancelled else { return }
        sd_event_source_set_enabled(pointer, on ? Int32(SD_EVENT_ON) : Int32(SD_EVENT_OFF))
    }

    /// Changes the events an io source waits for.
    package func setIOEvents(_ events: IOEvents) {
        guard !cancelled else { return }
        sd_event_source_set_io_events(pointer, events.rawValue)
    }
}
