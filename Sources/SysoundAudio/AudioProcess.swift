import CSysoundShims
import FoundationEssentials
import Glibc
import Synchronization
import SysoundCore
import SysoundPlatform

/// What OpenAL Soft and ALSA take from the process rather than from a call,
/// set once while the process has one thread: the environment may only be
/// written then (`setenv` races any thread's `getenv`, and libpulse, OpenAL
/// Soft and glibc read it from their own threads), and nothing here changes
/// at run time. The daemon calls `prepare` before it starts its loop and
/// workers; `AudioEngine.init` calls it too, before it starts any thread of
/// its own, and it does nothing once the process has more than one thread
/// (OpenAL Soft then keeps its own defaults).
///
/// - OpenAL Soft 1.19 takes its mixing period only from its config files
///   (`AlsoftConfig`), read once per process at its first device open of any
///   kind, from `ALSOFT_CONF` among others: a private file is written and
///   named there, and removed after the first engine's open
///   (`configurationRead`). The variable stays (unsetting it would be a
///   write at run time); a sysound process started by this one knows the
///   name as its parent's, not the user's, and writes its own. A user's own
///   `ALSOFT_CONF` is left alone. OpenAL Soft is not made to read it here:
///   its PulseAudio backend tries the sound server once, at that first open,
///   which must wait until a server answers (ServiceSetup).
/// - OpenAL Soft's PulseAudio client carries `sysound.engine` through
///   libpulse's `PULSE_PROP` (`PulseClientTag`), which every `pa_context_new`
///   reads, also a reopen's. sysound's own stream sets the property on its
///   context's property list instead, so `output = "pulse"` sets no variable.
/// - The noise of failed probes — OpenAL Soft's "AL lib: (EE)" lines, ALSA's
///   "cannot find card" — is hidden at its source (`ALSOFT_LOGLEVEL`, ALSA's
///   error handler) by a constructor that runs as the process loads, before
///   any thread (CSysoundShims, alsaquiet.c): an app's process has threads
///   long before its first sound, so this `prepare` would come too late there.
package enum AudioProcess {
    private nonisolated(unsafe) static var prepared: Bool?
    private nonisolated(unsafe) static var file: String?
    private nonisolated(unsafe) static var mixesOnly = false
    private static let lock = PthreadLock()
    static let filePrefix = "sysound-alsoft-"

    /// Prepares the process for `settings`' opens (once; later calls return
    /// the first one's answer). Returns false, touching nothing, when the
    /// process already runs more than one thread.
    ///
    /// `openALMixesOnly`: the process's one output is sysound's own stream
    /// (a one-shot process whose sound server answers), so OpenAL Soft only
    /// mixes, on a loopback device, and needs none of its backends. Its
    /// first call of any kind tries each backend it may use, and its
    /// PulseAudio backend's try is a whole connection to the server (its
    /// own mainloop thread, the cookie, the authentication; 8–12 ms of a
    /// one-shot `sysound play` here, before the own stream's connection).
    /// `ALSOFT_DRIVERS` names only its null backend then, and OpenAL Soft's
    /// own device is refused in this process (`OpenALDeviceOutput.open`):
    /// it could only be silent.
    @discardableResult
    package static func prepare(_ settings: AudioSettings, openALMixesOnly: Bool = false) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let prepared { return prepared }
        let single = ThreadCensus.threads().count == 1
        prepared = single
        guard single else { return false }
        let environment = ProcessInfo.processInfo.environment
        // Only OpenAL Soft's own device reads the file: none when it only mixes.
        if !openALMixesOnly, let text = AlsoftConfig.contents(settings), isUnclaimed(environment["ALSOFT_CONF"]) {
            let path = temporaryDirectory + filePrefix + "\(getpid()).conf"
            // Unwritable temp directory: OpenAL Soft keeps its own period, as without the file.
            // Not atomically: no one else reads this process's file, and an
            // atomic write syncs it to the disk (/tmp is a disk on many systems).
            if (try? Data(text.utf8).write(to: URL(fileURLWithPath: path))) != nil {
                setenv("ALSOFT_CONF", path, 1)
                file = path
            }
        }
        if openALMixesOnly {
            setenv("ALSOFT_DRIVERS", "null", 1)
            mixesOnly = true
        } else if settings.backend != .pulse, let merged = PulseClientTag.merged(into: environment["PULSE_PROP"] ?? "") {
            setenv("PULSE_PROP", merged, 1)
        }
        return true
    }

    /// Prepares a process that plays and exits (`sysound-play`, `sysound-engine
    /// request`), before it starts any thread: OpenAL Soft only mixes when
    /// the output will be the own stream, which then starts opening at once
    /// (`openAhead`).
    package static func prepareOneShot(_ settings: AudioSettings) {
        let server = SoundServerProbe.ask()
        prepare(settings, openALMixesOnly: AudioOutputs.opensOwnStream(settings, server: server))
        openAhead(settings, server: server)
    }

    /// Starts opening the own stream's two halves, each on a thread of its
    /// own, when the sound server answers and the output will be that
    /// stream: OpenAL Soft's mixer (`LoopbackOutput.openAhead`) and the
    /// event role's stream with its connection (`PulseStream.connectAhead`,
    /// corked until the first sound). The first output open takes both.
    /// After `prepare` (they are threads), and before the rest of a start:
    /// the theme's reading and the policy's decision in a one-shot play, the
    /// loop, the control files, haptics and LEDs in a daemon. Those then
    /// overlap OpenAL Soft's context (its page faults, and in a daemon its
    /// backends' first try of the server) and the server's round trips,
    /// which otherwise follow them on the way to the first sound.
    ///
    /// `server` is what `SoundServerProbe` answered just now, if asked.
    /// The first open takes the answer (`takeAnswerAhead`), whatever it is,
    /// instead of asking again: a server that does not answer is waited for
    /// once (`SoundServerProbe.answerDeadlineMs`), not twice.
    package static func openAhead(_ settings: AudioSettings, server: SoundServerProbe.Answer? = nil) {
        let server = server ?? SoundServerProbe.ask()
        answerAhead.withLock { $0 = server }
        guard AudioOutputs.opensOwnStream(settings, server: server) else { return }
        LoopbackOutput.openAhead(settings)
        PulseStream.connectAhead(settings)
    }

    /// The sound server's answer `openAhead` was given, once: the first
    /// open's (later opens, after a loss, ask again).
    package static func takeAnswerAhead() -> SoundServerProbe.Answer? {
        answerAhead.withLock { answer in
            defer { answer = nil }
            return answer
        }
    }

    private static let answerAhead = Locked<SoundServerProbe.Answer?>(nil)

    /// Runs `close` when the process exits (exit(3), a return from `main`),
    /// the last registered first, as atexit's handlers run.
    ///
    /// OpenAL Soft's library destructor (`alc_deinit`) frees the lists every
    /// device uses: a device still open, or still being opened on another
    /// thread, is then used freed (a one-shot play that exited while its
    /// mixer opened ahead crashed there). Whatever the process holds of
    /// OpenAL Soft and of the server — what was opened ahead, an app's
    /// embedded engines — is closed here first: atexit's handlers run
    /// before the libraries' destructors. A process that ends with `_exit`
    /// (a one-shot play that has played) runs none.
    package static func closeAtExit(_ close: @escaping @Sendable () -> Void) {
        _ = exitHandler
        closers.withLock { $0.append(close) }
    }

    private static let closers = Locked<[@Sendable () -> Void]>([])
    private static let exitHandler: Void = {
        atexit {
            for close in AudioProcess.closers.withLock({ $0 }).reversed() { close() }
        }
    }()

    /// Whether OpenAL Soft was left without its backends (`prepare`'s
    /// `openALMixesOnly`): its own device cannot play in this process.
    static var openALMixesOnly: Bool {
        lock.lock()
        defer { lock.unlock() }
        return mixesOnly
    }

    /// Removes the private config file once an engine has opened its device:
    /// OpenAL Soft has read it.
    static func configurationRead() {
        lock.lock()
        defer { lock.unlock() }
        if let file { unlink(file) }
        file = nil
    }

    /// `$TMPDIR/`, else `/tmp/`: where the private file goes.
    static var temporaryDirectory: String {
        guard let dir = getenv("TMPDIR").map({ String(cString: $0) }), !dir.isEmpty else { return "/tmp/" }
        return dir.hasSuffix("/") ? dir : dir + "/"
    }

    /// Whether an `ALSOFT_CONF` value is free to be replaced: unset, or the
    /// private file of another sysound process (the parent this one inherited it from).
    static func isUnclaimed(_ value: String?) -> Bool {
        guard let value else { return true }
        let name = value.split(separator: "/").last.map(String.init) ?? value
        return value.hasPrefix(temporaryDirectory) && name.hasPrefix(filePrefix) && name != filePrefix + "\(getpid()).conf"
    }
}

extension AudioProcess {
    /// Hands the pages freed by a closed engine back to the kernel. glibc
    /// keeps freed memory for later allocations, in the heap and in the
    /// arenas of the threads that allocated it (libpulse's, OpenAL Soft's):
    /// without this a closed role's OpenAL Soft context and stream stay in the
    /// daemon's resident memory. Walks every arena: after a close, not on a
    /// play's path.
    package static func returnFreedMemory() {
        _ = sysound_trim_heap()
    }

    /// The daemon's choice, made at start while it has one thread; an app's
    /// malloc and memory are its own, and a one-shot process ends first.
    ///
    /// - Every allocation of 512 KB or more (an OpenAL Soft context's
    ///   voices, 7.6 MB; a decoded clip) gets a mapping of its own, returned
    ///   to the kernel when it is freed. glibc otherwise raises this
    ///   threshold to the size of the first such block freed, and the next
    ///   contexts come from a thread's arena, whose free top `malloc_trim`
    ///   does not give back: measured, after the fourth role engine closed
    ///   every close left 7.6 MB.
    /// - Each new context's unused voices are given back as it is made
    ///   (`ContextVoiceMemory`).
    ///
    /// `false` stops the second for the contexts made after (the tests); the
    /// malloc setting stays.
    package static func keepMemoryLean(_ on: Bool = true) {
        if on { _ = sysound_set_mmap_threshold(512 * 1024) }
        lean.store(on, ordering: .releasing)
    }

    /// Whether `keepMemoryLean()` was called.
    static var keepsMemoryLean: Bool { lean.load(ordering: .acquiring) }
    private static let lean = Atomic<Bool>(false)
}
