import CPulse

/// One libpulse threaded mainloop (`pa_threaded_mainloop`) and the context
/// on it: what the process's connection for the own streams (PulseConnection,
/// on which every role's PulseStream is) and the bench's onset meter
/// (sysound-bench's SinkOnsetMeter) both set up, wait on and tear down.
/// Thin wrappers named after the C calls; failures are `AudioError.pulse`
/// with libpulse's own reason (`pa_strerror`).
///
/// The owner sets the context's state callback (and signals from it), creates
/// its streams on `context`, and calls `disconnect()` (locked) and `stop()`
/// (unlocked) when done; the context and the mainloop are freed with this
/// object, never from the mainloop's own thread.
package final class ThreadedMainloop: PulseCallbackTarget, @unchecked Sendable {
    package let mainloop: OpaquePointer
    package let context: OpaquePointer

    /// `pa_threaded_mainloop_new` (its thread named `threadName`, as
    /// `ps -L` and the real-time helper see it) and `pa_context_new_with_proplist`
    /// with `properties` (libpulse adds PULSE_PROP's without overwriting these).
    package init(threadName: String? = nil, clientName: String, properties: [(String, String)] = []) throws(AudioError) {
        guard let m = pa_threaded_mainloop_new() else { throw .pulse(operation: "pa_threaded_mainloop_new", reason: "out of memory") }
        if let threadName { pa_threaded_mainloop_set_name(m, threadName) }
        var props: OpaquePointer?
        if !properties.isEmpty {
            props = pa_proplist_new()
            for (key, value) in properties { pa_proplist_sets(props, key, value) }
        }
        defer { if let props { pa_proplist_free(props) } }
        guard let c = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(m), clientName, props) else {
            pa_threaded_mainloop_free(m)
            throw .pulse(operation: "pa_context_new", reason: "out of memory")
        }
        mainloop = m
        context = c
    }

    deinit {
        pa_threaded_mainloop_stop(mainloop)
        pa_context_unref(context)
        pa_threaded_mainloop_free(mainloop)
    }

    /// The mainloop's API, for io and time events and `pa_mainloop_api_once`.
    package var api: UnsafeMutablePointer<pa_mainloop_api> { pa_threaded_mainloop_get_api(mainloop) }

    package func lock() { pa_threaded_mainloop_lock(mainloop) }
    package func unlock() { pa_threaded_mainloop_unlock(mainloop) }
    /// Wakes every `wait()` (from the mainloop thread).
    package func signal() { pa_threaded_mainloop_signal(mainloop, 0) }
    /// Waits (locked) until the mainloop thread signals.
    package func wait() { pa_threaded_mainloop_wait(mainloop) }

    /// `pa_threaded_mainloop_start` (locked or not).
    package func start() throws(AudioError) {
        guard pa_threaded_mainloop_start(mainloop) == 0 else { throw .pulse(operation: "pa_threaded_mainloop_start", reason: "no thread") }
    }

    /// `pa_context_connect` to the server libpulse finds (PULSE_SERVER, else
    /// the session's), never spawning one, and waits (locked, mainloop
    /// started, a state callback that signals) until the context is ready.
    package func connect(until deadline: pa_usec_t) throws(AudioError) {
        guard pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) == 0 else { throw failure("pa_context_connect") }
        try wait(for: "the sound server's connection", until: deadline) { () -> Bool? in
            switch pa_context_get_state(context) {
            case PA_CONTEXT_READY: true
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: nil
            default: false
            }
        }
    }

    /// Waits (locked) until `stream` is ready (its state callback signals).
    package func waitUntilReady(_ stream: OpaquePointer, _ what: String, until deadline: pa_usec_t) throws(AudioError) {
        try wait(for: what, until: deadline) { () -> Bool? in
            switch pa_stream_get_state(stream) {
            case PA_STREAM_READY: true
            case PA_STREAM_FAILED, PA_STREAM_TERMINATED: nil
            default: false
            }
        }
    }

    /// Waits (locked) until `ready` says true; nil means it never will.
    /// A timer (`pa_context_rttime_new`) signals at `deadline`, so the wait
    /// ends then even when a server accepted and never answers.
    package func wait(for what: String, until deadline: pa_usec_t, _ ready: () -> Bool?) throws(AudioError) {
        let timer = pa_context_rttime_new(context, deadline, { _, _, _, me in ThreadedMainloop.from(me).signal() }, selfPointer)
        defer { if let timer { api.pointee.time_free(timer) } }
        while true {
            guard let ok = ready() else { throw failure("waiting for \(what)") }
            if ok { return }
            guard pa_rtclock_now() < deadline else { throw .pulse(operation: "waiting for \(what)", reason: "timed out") }
            wait()
        }
    }

    /// `pa_rtclock_now() + seconds`: a deadline for the waits above.
    package static func deadline(in seconds: Double) -> pa_usec_t { pa_rtclock_now() + pa_usec_t(seconds * 1e6) }

    /// libpulse's reason for the context's last failure (`pa_strerror(pa_context_errno)`).
    package var lastError: String { String(cString: pa_strerror(pa_context_errno(context))) }

    /// `call` failed, for libpulse's reason.
    package func failure(_ call: String) -> AudioError { .pulse(operation: call, reason: lastError) }

    /// Drops the context's state callback and disconnects it (locked).
    package func disconnect() {
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
    }

    /// `pa_threaded_mainloop_stop` (unlocked): no callback runs after it.
    package func stop() { pa_threaded_mainloop_stop(mainloop) }
}

/// An object libpulse's callbacks reach through their userdata pointer,
/// unretained: the owner outlives every callback it registered.
package protocol PulseCallbackTarget: AnyObject {}

extension PulseCallbackTarget {
    package var selfPointer: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    package static func from(_ p: UnsafeMutableRawPointer?) -> Self { Unmanaged<Self>.fromOpaque(p!).takeUnretainedValue() }
}
