import Glibc
import SysoundRealtime

/// Which threads are the output's audio threads. OpenAL Soft 1.19.1's
/// PulseAudio backend starts two without saying their ids: libpulse's
/// threaded mainloop ("threaded-ml", named by libpulse) in `alcOpenDevice`,
/// and its mixer thread, which Debian's build leaves unnamed (it keeps the
/// name of the thread that created it), in `alcOpenDevice` and again in each
/// `alcDeviceResumeSOFT` (a pause joins it, a resume starts a new one). So
/// they are the threads that appear in /proc/self/task while one of those
/// calls runs and carry one of those two names (`ThreadCensus.started`).
///
/// Why that is safe: the daemon starts its own threads (loop, workers) once,
/// before the device opens, and names them; the only other threads that can
/// appear meanwhile are libdispatch's (theme decoding), which it names
/// "…-qos…" and which the name test keeps out. A thread taken wrongly would
/// still be bounded: real-time threads get SCHED_RESET_ON_FORK and the
/// process an RLIMIT_RTTIME (`RealtimeThreads`), so one that never blocked
/// would end the process within 200 ms rather than hold a core.
enum AudioThreads {
    static let libpulseMainloop = "threaded-ml"
    static let openPurpose = "OpenAL Soft's mixer and libpulse's threaded-ml, started by alcOpenDevice"
    static let resumePurpose = "OpenAL Soft's mixer, started again by alcDeviceResumeSOFT"

    /// Runs `body` (an ALC call) and returns the audio threads it started.
    static func started<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> (result: T, threads: [pid_t]) {
        try ThreadCensus.started(named: [libpulseMainloop], by: body)
    }
}
