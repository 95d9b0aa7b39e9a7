import FoundationEssentials
import Glibc
import SysoundCore
import SysoundPlatform

/// Which threads are the output's audio threads. OpenAL Soft 1.19.1 with its
/// PulseAudio backend starts three without saying their ids while the device
/// opens and its context is created: libpulse's threaded mainloop
/// ("threaded-ml", named by libpulse), the mixer, and the context's event
/// thread; Debian's build names neither of the last two, so they keep the name
/// of the thread that created them. Each `alcDeviceResumeSOFT` starts a new
/// mixer (a pause joins it). So the calling thread is named `alsoftThreads`
/// while one of those calls runs, and the audio threads are those that
/// appear in /proc/self/task meanwhile under that name or libpulse's
/// (`ThreadCensus.started`); OpenAL Soft's two keep it as their name, which
/// says in `ps -L` and `top -H` what they are. The event thread sleeps until
/// the mixer posts an AL_SOFT_events event, which sysound never enables:
/// making it real-time costs nothing, and telling it from the mixer would
/// take more than its name.
///
/// Why that is safe: opens and resumes are serialized (`opens`), so no
/// other thread carries the name while one runs, and OpenAL Soft's threads
/// that carry it from earlier opens start no threads. A thread another part
/// of the process starts meanwhile carries its own creator's name, even
/// where that creator's usual name is the caller's (the pool's workers
/// share theirs; the main thread's is the process's). A thread taken wrongly would
/// still be bounded: real-time threads get SCHED_RESET_ON_FORK and the
/// process an RLIMIT_RTTIME (`RealtimeThreads`), so one that never blocked
/// would end the process within 200 ms rather than hold a core.
enum AudioThreads {
    static let libpulseMainloop = "threaded-ml"
    /// The name OpenAL Soft's unnamed threads are born with (the caller's, for the call).
    static let alsoftThreads = "sysound-alsoft"
    static let openPurpose = "libpulse's threaded-ml, OpenAL Soft's mixer and event thread, started by the device's opening"
    static let resumePurpose = "OpenAL Soft's mixer, started again by alcDeviceResumeSOFT"

    /// Serializes the process's device opens and resumes: each tells its
    /// threads by the threads that appeared while it ran, which another
    /// open's would spoil. Recursive: an engine's open holds it around the
    /// whole open, which takes it again here.
    static let opens = PthreadLock(recursive: true)

    /// Runs `body` (an ALC call) and returns the audio threads it started.
    static func started<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (result: T, threads: [pid_t]) {
        opens.lock()
        defer { opens.unlock() }
        return try ThreadCensus.started(as: alsoftThreads, orNamed: [libpulseMainloop], by: body)
    }
}
