import SysoundCore
import Foundation

/// OpenAL Soft 1.19 takes its mixing period only from its config files
/// (`period_size`, `periods`); ALC_REFRESH does not change it. So before the
/// first ALC call of the process the engine writes a private config file and
/// points ALSOFT_CONF at it (OpenAL Soft reads that file last, over the system
/// and user files). The library reads its config once per process, at its
/// first device open of any kind: the first engine's settings win. A user's
/// own ALSOFT_CONF is left alone.
///
/// Only OpenAL Soft's own device reads these keys. The loopback device (the
/// own stream's mixer, `--to FILE`) takes its rate from the context and
/// renders what it is asked for: in 1.19.1 `alcLoopbackOpenDeviceSOFT` reads
/// `sources`, `slots` and `sends` only, while `frequency`, `period_size` and
/// `periods` are read by `alcOpenDevice` and, in `UpdateDeviceParams`, for
/// other devices. So `output = "pulse"`, whose every open is that loopback,
/// gets no file. `auto` does: it opens OpenAL Soft's device when no server
/// answers or the stream fails, and that device takes the config read at the
/// process's first open. A loopback engine writes it too: its open may be that
/// first one, before a device engine of the same settings (render, then play).
enum AlsoftConfig {
    nonisolated(unsafe) private static var done = false
    nonisolated(unsafe) private static var path: String?
    private static let lock = NSLock()

    static func installOnce(_ s: AudioSettings) {
        lock.lock()
        defer { lock.unlock() }
        guard !done else { return }
        done = true
        guard let text = contents(s), ProcessInfo.processInfo.environment["ALSOFT_CONF"] == nil else { return }
        let file = NSTemporaryDirectory() + "sysound-alsoft-\(getpid()).conf"
        guard (try? text.write(toFile: file, atomically: true, encoding: .utf8)) != nil else { return }
        setenv("ALSOFT_CONF", file, 1)
        path = file
    }

    /// The file for these settings; nil when none of their device opens reads it.
    static func contents(_ s: AudioSettings) -> String? {
        guard s.writeAlsoftConfig, s.backend != .pulse else { return nil }
        return """
            # Written by sysound for this process only: a short mixing period.
            # period_size counts frames at `frequency` (44100 when unset): without
            # it a 48 kHz context scales 128 frames up to 140.
            [general]
            frequency = \(s.sampleRate)
            period_size = \(max(64, min(s.periodFrames, 8192)))
            periods = \(max(2, min(s.periods, 16)))

            """
    }

    /// Removes the file once OpenAL Soft has read it (after the first device
    /// opened), and the variable with it: a process this one starts (the
    /// daemon a test or the benchmark spawns) must not inherit a pointer to a
    /// file that is gone and take it for the user's own ALSOFT_CONF.
    static func removeFile() {
        lock.lock()
        defer { lock.unlock() }
        if let p = path {
            unlink(p)
            unsetenv("ALSOFT_CONF")
            path = nil
        }
    }
}
