import SysoundCore
import CPulse

/// What sysound's stream asks of the server: its buffer and its flags.
extension PulseStream {
    /// What the stream asks the server for, in frames.
    ///
    /// - `tlength` = `periodFrames × periods` (8 ms at 96 × 4): how much is
    ///   kept written ahead while a sound plays, so a late refill under load
    ///   still finds data queued; it is also what a sound started during
    ///   another sound's tail waits behind. The first write after idle is a
    ///   full `tlength`: its length does not delay it.
    /// - `minreq` = one period: the server asks for more in periods, as OpenAL
    ///   Soft's stream did.
    /// - `prebuf` = one period: a write onto a drained stream (which the kick
    ///   always makes at least that long) starts it at once; the server's
    ///   default (`tlength`) would hold the first write back until the buffer
    ///   is full.
    struct Request: Equatable {
        var tlength: Int
        var minreq: Int
        var prebuf: Int

        init(_ s: AudioSettings) {
            minreq = max(s.periodFrames, 16)
            tlength = minreq * max(s.periods, 2)
            prebuf = minreq
        }

        /// What a corked, idle stream asks for: the longest buffer the
        /// server's default maxlength holds, so its latency request never
        /// lowers the sink's (`PulseStream.relax`).
        static func idle(after playing: Request, rate: Int) -> Request {
            Request(tlength: rate * idleBufferSeconds, minreq: playing.minreq, prebuf: playing.prebuf)
        }

        static let idleBufferSeconds = 4

        init(tlength: Int, minreq: Int, prebuf: Int) {
            self.tlength = tlength
            self.minreq = minreq
            self.prebuf = prebuf
        }
    }

    /// The stream's flags: timing interpolated (for `latencyNanoseconds`;
    /// updated while a sound is written, `askTiming`, not by libpulse's
    /// automatic updates, which run idle too), and `ADJUST_LATENCY`, so that
    /// `tlength` is the whole latency (buffer and sink) and the sink is set
    /// to `(tlength − 2 × minreq) / 2`, as for OpenAL Soft's stream.
    static let flags = pa_stream_flags_t(PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue)
}
