import CPulse
import CSysoundShims
import FoundationEssentials
import Glibc
import Synchronization
import SysoundCore
import SysoundPlatform

/// The process's one connection to the sound server for sysound's own
/// streams: one libpulse threaded mainloop ("sysound-audio", made real-time
/// once) and one context on it, whatever the number of media roles playing.
/// Every role's `PulseStream` is a `pa_stream` on this context and is
/// rendered on this one thread; a role's stream costs the server no client
/// and the process no thread of its own (when each role opened its own
/// mainloop and context, an alarm beside the event stream cost one client and
/// one real-time thread more: figure 17 counts both while an alarm plays).
///
/// Shared and counted (`acquire`, `release`): each open stream holds it, and
/// the last stream's close ends it (its thread stops, its client leaves the
/// server). In the daemon the event stream lives as long as the process, so
/// the connection does too; an app's embedded engine gives it back with its
/// last stream. `--to FILE` (loopback rendering) and OpenAL Soft's device
/// never acquire one.
///
/// The server's loss fails the context once: every stream on it is told
/// (`PulseStream.connectionFailed`), each engine's monitor reconnects its own
/// stream, and the first of those `acquire`s makes the new connection that
/// the others then share. A stream that fails alone (its sink input killed)
/// reconnects on the connection that is still up.
///
/// Threads: `acquire` and `release` from any thread but the mainloop's (a
/// worker: they may wait for the server, and the last release stops the
/// mainloop). Lock order: `opening` (held while a connection is made), then
/// `current`; the mainloop lock is taken only without either held by the
/// thread that makes or closes a connection, so no engine's lock meets them.
final class PulseConnection: PulseCallbackTarget, @unchecked Sendable {
    // @unchecked: `users` and `promoted` change under `current`'s lock;
    // `members` under the mainloop lock; `onPipeWire` is set before the
    // connection is handed out and only read after.
    let loop: ThreadedMainloop
    /// `PULSE_SERVER` when it was made (nil: the session's server). A stream
    /// joins only the connection to the server libpulse would find now: the
    /// variable is fixed for a daemon's life, but a process that names
    /// another server (a test of a missing one) must not be handed the old.
    private let server: String?
    /// The mainloop thread's kernel id (gettid), known once `acquire` returned.
    private let tid = Atomic<Int32>(0)
    /// False once the context failed or ended: the next `acquire` makes a new one.
    private let up = Atomic<Bool>(true)
    /// Streams open on it and not closed (mainloop lock held): told its failure.
    private var members: [ObjectIdentifier: Member] = [:]
    /// Whether the server is pipewire-pulse (its name, asked once at connect).
    private(set) var onPipeWire = false
    /// Streams holding it (`current`'s lock held).
    private var users = 0
    /// Whether its thread was made real-time (`current`'s lock held).
    private var promoted = false

    private struct Member {
        weak var stream: PulseStream?
    }

    /// The connection new streams join; nil before the first and after the last.
    private static let current = Locked<PulseConnection?>(nil)
    /// One connection made at a time: two roles reconnecting after a loss share one.
    private static let opening = PthreadLock()
    /// The last failure to make one (`opening` held): the roles' monitors
    /// retry a lost server on the same back-off, one right after another
    /// (`AudioThreads.opens`), and those that come within `sharedFailureMicros`
    /// of a failed try are answered with it instead of connecting again, so a
    /// hung server is waited for once per retry, not once per role.
    private nonisolated(unsafe) static var lastFailure: (at: UInt64, server: String?, error: AudioError)?
    /// Shorter than the monitor's first back-off step (50 ms).
    static let sharedFailureMicros: UInt64 = 25_000
    /// Connections this process tried to make (`opening` held), as tests count them.
    private(set) nonisolated(unsafe) static var tries = 0

    private init(clientName: String, server: String?) throws(AudioError) {
        self.server = server
        // The thread's name is what the real-time helper and `ps -L` see;
        // the context carries sysound.engine (PulseClientTag) in its property list.
        loop = try ThreadedMainloop(threadName: "sysound-audio", clientName: clientName, properties: [(PulseClientTag.key, PulseClientTag.value)])
    }

    /// The connection up now, else a new one (connected within
    /// `timeoutSeconds`); held until `release`. `realtime` makes its thread
    /// real-time if no earlier holder did.
    static func acquire(timeoutSeconds: Double, realtime: RealtimeThreads?) throws(AudioError) -> PulseConnection {
        opening.lock()
        defer { opening.unlock() }
        let server = getenv("PULSE_SERVER").map { String(cString: $0) }
        let connection: PulseConnection
        if let live = current.withLock({ c -> PulseConnection? in
            guard let c, c.isUp, c.server == server else { return nil }
            c.users += 1
            return c
        }) {
            connection = live
        } else {
            if let last = lastFailure, last.server == server, EventLoop.monotonicNow() - last.at < sharedFailureMicros { throw last.error }
            let made: PulseConnection
            tries += 1
            do throws(AudioError) {
                made = try PulseConnection(clientName: ProcessInfo.processInfo.processName, server: server)
                do { try made.start(timeoutSeconds: timeoutSeconds) } catch {
                    made.close()
                    throw error
                }
            } catch {
                lastFailure = (EventLoop.monotonicNow(), server, error)
                throw error
            }
            lastFailure = nil
            current.withLock {
                made.users = 1
                // A lost connection stays with its streams until they are closed.
                $0 = made
            }
            connection = made
        }
        connection.promoteOnce(realtime)
        return connection
    }

    /// Gives back what `acquire` gave: the last holder's release closes the
    /// connection (its client leaves the server, its thread ends). Never on
    /// the mainloop thread.
    func release() {
        let last = Self.current.withLock { c -> Bool in
            users -= 1
            guard users == 0 else { return false }
            if c === self { c = nil }
            return true
        }
        if last { close() }
    }

    /// False once the server's loss failed the context.
    var isUp: Bool { up.load(ordering: .acquiring) }
    /// The mainloop thread's kernel id.
    var threadID: Int32 { tid.load(ordering: .acquiring) }

    /// Adds `stream` to those told the connection's failure (mainloop lock held).
    func join(_ stream: PulseStream) {
        members[ObjectIdentifier(stream)] = Member(stream: stream)
    }

    /// Removes it (mainloop lock held): a closed stream is told nothing more.
    func leave(_ stream: PulseStream) {
        members[ObjectIdentifier(stream)] = nil
    }

    private func start(timeoutSeconds: Double) throws(AudioError) {
        pa_context_set_state_callback(loop.context, { _, me in PulseConnection.from(me).stateChanged() }, selfPointer)
        loop.lock()
        defer { loop.unlock() }
        try loop.start()
        // Runs in the mainloop's first iteration, long before the context is ready.
        pa_threaded_mainloop_once_unlocked(loop.mainloop, { _, me in
            PulseConnection.from(me).tid.store(sysound_gettid(), ordering: .releasing)
        }, selfPointer)
        let deadline = ThreadedMainloop.deadline(in: timeoutSeconds)
        try loop.connect(until: deadline)
        if let op = pa_context_get_server_info(loop.context, { _, info, me in PulseConnection.from(me).serverDescribed(info?.pointee) }, selfPointer) {
            // Past the deadline the server counts as PulseAudio (its name is only for the stream's buffer choice).
            try? loop.wait(for: "the server's name", until: deadline) { pa_operation_get_state(op) != PA_OPERATION_RUNNING }
            pa_operation_unref(op)
        }
    }

    /// Makes the mainloop thread real-time, once, with the first holder's
    /// `realtime` (a stream made ahead, with none, is promoted when taken).
    func promoteOnce(_ realtime: RealtimeThreads?) {
        guard let realtime else { return }
        let first = Self.current.withLock { _ -> Bool in
            defer { promoted = true }
            return !promoted
        }
        let tid = threadID
        if first, tid > 0 {
            realtime.promote([tid], purpose: "sysound's PulseAudio connection thread (sysound-audio), which mixes and writes every role's stream")
        }
    }

    /// Disconnects the context and stops the thread (without its lock):
    /// no callback runs after it; the context and the mainloop are freed with `loop`.
    private func close() {
        loop.lock()
        members = [:]
        loop.disconnect()
        loop.unlock()
        loop.stop()
    }

    // MARK: On the mainloop thread

    /// pipewire-pulse names itself "PulseAudio (on PipeWire …)".
    private func serverDescribed(_ info: pa_server_info?) {
        if let name = info?.server_name.map({ String(cString: $0) }), name.contains("PipeWire") { onPipeWire = true }
        loop.signal()
    }

    private func stateChanged() {
        let state = pa_context_get_state(loop.context)
        if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED, isUp {
            up.store(false, ordering: .releasing)
            let reason = loop.lastError
            for member in members.values { member.stream?.connectionFailed(reason) }
        }
        loop.signal()
    }
}
