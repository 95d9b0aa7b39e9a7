import Glibc
import SysoundCore

/// Whether the PulseAudio-protocol server (PulseAudio or pipewire-pulse)
/// accepts connections, asked with a plain `connect` before OpenAL Soft is.
///
/// OpenAL Soft 1.19 tries the server once per process, at its first call:
/// if nothing answers then, its PulseAudio backend is dropped for the life
/// of the process and no later `alcOpenDevice` can reach a server that has
/// come since. A daemon started before its sound server therefore asks
/// here first and leaves OpenAL alone until a server is there.
public enum SoundServerProbe {
    /// The unix socket paths libpulse would connect to: `PULSE_SERVER`'s
    /// (`unix:/path` or `/path` entries), else `$PULSE_RUNTIME_PATH/native`,
    /// else `$XDG_RUNTIME_DIR/pulse/native`. Nil when that cannot be told
    /// from here (a TCP server, OpenAL Soft pinned to another backend).
    public static func socketPaths(_ variable: (String) -> String? = Self.variable) -> [String]? {
        if let drivers = variable("ALSOFT_DRIVERS"), !drivers.isEmpty,
           !drivers.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "pulse" }) {
            return nil
        }
        if let servers = variable("PULSE_SERVER"), !servers.isEmpty {
            var paths: [String] = []
            for entry in servers.split(separator: " ") {
                if entry.hasPrefix("unix:") { paths.append(String(entry.dropFirst(5))) }
                else if entry.hasPrefix("/") { paths.append(String(entry)) }
                else { return nil }
            }
            return paths
        }
        if let runtime = variable("PULSE_RUNTIME_PATH"), !runtime.isEmpty { return [runtime + "/native"] }
        if let xdg = variable("XDG_RUNTIME_DIR"), !xdg.isEmpty { return [xdg + "/pulse/native"] }
        return nil
    }

    /// True when a server accepts at one of `socketPaths`, false when none
    /// does, nil when it cannot be told. Never blocks: a non-blocking connect
    /// to a unix socket completes or fails at once.
    public static func serverAccepts(_ variable: (String) -> String? = Self.variable) -> Bool? {
        guard let paths = socketPaths(variable) else { return nil }
        return paths.contains(where: accepts)
    }

    static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard let rc = UnixSocket.withAddress(path, { connect(fd, $0, $1) }) else { return false }
        // EAGAIN: the server's backlog is full, but something listens there.
        return rc == 0 || errno == EAGAIN || errno == EINPROGRESS
    }

    /// An environment variable of the process (`getenv(3)`).
    public static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
