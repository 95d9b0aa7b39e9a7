import SysoundCore

/// OpenAL Soft 1.19 takes its mixing period only from its config files
/// (`period_size`, `periods`); ALC_REFRESH does not change it. So before the
/// first ALC call of the process a private config file is named in
/// ALSOFT_CONF (OpenAL Soft reads that file last, over the system and user
/// files), while the process has one thread (`AudioProcess.prepare`). The
/// library reads its config once per process, at its first device open of
/// any kind: the first settings prepared win.
///
/// Only OpenAL Soft's own device reads these keys. The loopback device (the
/// own stream's mixer, `--to FILE`) takes its rate from the context and
/// renders what it is asked for: in 1.19.1 `alcLoopbackOpenDeviceSOFT` reads
/// `sources`, `slots` and `sends` only, while `frequency`, `period_size` and
/// `periods` are read by `alcOpenDevice` and, in `UpdateDeviceParams`, for
/// other devices. So `output = "pulse"`, whose every open is that loopback,
/// gets no file. `auto` does: it opens OpenAL Soft's device when no server
/// answers or the stream fails.
enum AlsoftConfig {
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
}
