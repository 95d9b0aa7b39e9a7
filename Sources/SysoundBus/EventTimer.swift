import CSystemd
import Glibc

/// A one-shot timer on an sd-event loop (sd_event_add_time_relative,
/// CLOCK_MONOTONIC); `body` runs on the loop's thread unless the timer was
/// cancelled or dropped first.
public final class EventTimer: @unchecked Sendable {
    private var source: OpaquePointer?
    private let body: () -> Void

    public init(event: OpaquePointer, after microseconds: UInt64, _ body: @escaping () -> Void) throws(BusError) {
        self.body = body
        var source: OpaquePointer? = nil
        // Unretained: the source is disabled and released before this object goes.
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try check(sd_event_add_time_relative(event, &source, clockid_t(CLOCK_MONOTONIC), microseconds, 1_000, { _, _, userdata in
            guard let userdata else { return 0 }
            let timer = Unmanaged<EventTimer>.fromOpaque(userdata).takeUnretainedValue()
            timer.cancel()
            timer.body()
            return 0
        }, userdata), "sd_event_add_time_relative")
        self.source = source
    }

    public func cancel() {
        guard let source else { return }
        self.source = nil
        sd_event_source_disable_unref(source)
    }

    deinit { cancel() }
}
