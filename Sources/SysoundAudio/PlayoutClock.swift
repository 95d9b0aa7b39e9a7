/// When what a stream has written will have been heard, by the writer's own
/// count: each block plays after what was written before it, or, on a
/// stream that has run dry, after `drainedStartMicros` (the server starts a
/// drained stream's first write as soon as it holds `prebuf`, which every
/// write after a kick does), and the sink then holds it for its own latency.
///
/// Not the stream's `latencyNanoseconds`: that is what a *new* sound waits
/// behind, which once the stream has run dry is nothing (PulseAudio) or a
/// cycle (PipeWire) — and it runs dry in the very block a voice ends in,
/// while that block and what was written before it still have to be heard.
/// Times are CLOCK_MONOTONIC microseconds.
struct PlayoutClock {
    /// When the last frame written so far has left the stream for the sink.
    private(set) var playedOutAt: UInt64 = 0
    /// The sink's latency, from the stream's last timing update.
    var sinkMicros: UInt64 = 0
    /// How long a write onto the drained stream waits for the sink to take
    /// it: 0 where the server rewinds the sink (PulseAudio), up to the
    /// graph's next cycle where it does not (PipeWire).
    var drainedStartMicros: UInt64 = 0

    /// `frames` at `rate` are about to be written at `now`.
    mutating func write(frames: Int, rate: Int, now: UInt64) {
        guard frames > 0, rate > 0 else { return }
        playedOutAt = max(playedOutAt, now + drainedStartMicros) + UInt64(frames) * 1_000_000 / UInt64(rate)
    }

    /// How long from `now` until the last frame written has been heard.
    func untilHeard(now: UInt64) -> UInt64 {
        let heardAt = playedOutAt + sinkMicros
        return heardAt > now ? heardAt - now : 0
    }
}
