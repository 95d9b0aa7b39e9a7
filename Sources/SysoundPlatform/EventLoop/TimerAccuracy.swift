/// How late a timer may fire. sd-event runs a timer anywhere between its
/// deadline and the deadline plus its accuracy, and wakes once for every
/// timer whose windows overlap (systemd picks a per-boot spot in the window,
/// so timers of other programs coalesce too): an idle daemon's upkeep then
/// costs a wake-up it shares, instead of one of its own (docs/architecture.md,
/// "The one event loop": what wakes the loop at rest).
///
/// Every timer states its accuracy; the loop has no default, because sd-event's
/// own (0 means 250 ms) is wrong for a haptic step and right for upkeep.
package struct TimerAccuracy: Sendable, Equatable, CustomStringConvertible {
    /// The window after the deadline, µs; at least 1.
    package let microseconds: UInt64

    /// A window of `microseconds` (0 is taken as 1: sd-event would read 0 as 250 ms).
    package init(microseconds: UInt64) {
        self.microseconds = max(microseconds, 1)
    }

    /// On its microsecond: a haptic pattern step, whose timing people feel,
    /// and an audio engine clock.
    package static let exact = TimerAccuracy(microseconds: 1)

    /// Within a millisecond: deadlines a request or a person sees (a
    /// request's timeout, a grace period, a D-Bus event's end), one-shot retries.
    package static let millisecond = TimerAccuracy(microseconds: 1_000)

    /// Upkeep that only has to happen eventually, on a timer that repeats
    /// every `interval` µs: a quarter of the interval, at most a second
    /// (the watchdog ping, the state directory check, reconnect back-off).
    package static func coarse(every interval: UInt64) -> TimerAccuracy {
        TimerAccuracy(microseconds: min(interval / 4, 1_000_000))
    }

    package var description: String { "\(microseconds) µs" }
}
