/// What the own stream can tell about itself, taken at once (one read of
/// its small lock): for `sysound status`, the tests and the bench.
struct StreamFacts: Sendable {
    /// The mainloop thread's kernel id (gettid), 0 until it ran.
    let threadID: Int32
    /// Bytes written on the stream since it opened.
    let bytesWritten: UInt64
    /// Kicks since the stream opened: plays that found it drained.
    let kicks: Int
    /// Underflows while a sound was being written (gaps), not the planned ones after a tail.
    let underflows: Int
    /// What the server granted (`pa_stream_get_buffer_attr`), in frames; nil until it answered.
    let granted: PulseStream.Request?
}
