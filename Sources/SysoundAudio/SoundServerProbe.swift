import CSysoundShims
import Glibc
import SysoundCore
import SysoundPlatform

/// Whether the PulseAudio-protocol server (PulseAudio or pipewire-pulse)
/// answers, asked with libpulse's first packet before OpenAL Soft is.
///
/// OpenAL Soft 1.19 tries the server once per process, at its first call:
/// if nothing answers then, its PulseAudio backend is dropped for the life
/// of the process and no later `alcOpenDevice` can reach a server that has
/// come since. Its try has no deadline of its own: libpulse waits up to 30 s
/// for the reply to its AUTH packet (measured: a daemon at a socket that
/// accepts and never answers got READY=1 after 30.6 s, without PulseAudio
/// for good). So every device open first asks here, with the same first
/// packet and a short deadline, and leaves OpenAL alone until a server answers.
package enum SoundServerProbe {
    /// What the server at the socket did when asked.
    package enum Answer: Sendable, Equatable {
        /// It replied to an AUTH packet: libpulse's first try will not hang.
        case answers
        /// Nothing listens at any of the paths.
        case absent
        /// Something listens but did not reply in time, closed the
        /// connection without a reply, or has a full backlog: a stopped,
        /// hung or dying server (or one still starting). OpenAL's try would
        /// hang or fail, and either loses the server for the process.
        case silent
        /// Cannot be told from here (a TCP server, OpenAL Soft pinned to
        /// another backend): left to libpulse and OpenAL Soft.
        case unknown
    }

    /// How long a server has to answer the AUTH packet. A running
    /// PulseAudio or pipewire-pulse answers in well under a millisecond;
    /// a daemon starts without audio at most this much later when the server hangs.
    package static let answerDeadlineMs: Int32 = 1000

    /// The unix socket paths libpulse would connect to: `PULSE_SERVER`'s
    /// (`unix:/path` or `/path` entries), else `$PULSE_RUNTIME_PATH/native`,
    /// else `$XDG_RUNTIME_DIR/pulse/native`. Nil when that cannot be told
    /// from here (a TCP server, OpenAL Soft pinned to another backend).
    package static func socketPaths(_ variable: (String) -> String? = Self.variable) -> [String]? {
        // OpenAL Soft pinned to another backend, unless sysound left it none (it only mixes here).
        if !AudioProcess.openALMixesOnly, let drivers = variable("ALSOFT_DRIVERS"), !drivers.isEmpty,
           !drivers.split(separator: ",").contains(where: { $0.trimmingWhitespace() == "pulse" }) {
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

    /// Asks the server at `socketPaths` as libpulse would, in its order:
    /// the first path where something listens decides. Blocks at most
    /// `deadlineMs` (a server that hangs). Once per device open: the
    /// answer is handed to the open (`AudioEngine.init`'s `server`).
    package static func ask(deadlineMs: Int32 = answerDeadlineMs, _ variable: (String) -> String? = Self.variable) -> Answer {
        guard let paths = socketPaths(variable) else { return .unknown }
        for path in paths {
            switch firstReply(path, deadlineMs: deadlineMs) {
            case .absent: continue
            case .silent, .closed: return .silent
            case .replied: return .answers
            }
        }
        return .absent
    }

    /// What a server at `path` did with the AUTH packet.
    enum Reply: Equatable {
        case absent
        case silent
        /// It closed the connection (or sent what is not a packet).
        case closed
        /// The command of its first packet: 2, REPLY (authorized), or 0,
        /// ERROR (another user's server wanting a cookie: alive all the same).
        case replied(command: UInt32)
    }

    static func firstReply(_ path: String, deadlineMs: Int32) -> Reply {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .absent }
        defer { close(fd) }
        guard let rc = UnixSocket.withAddress(path, { connect(fd, $0, $1) }) else { return .absent }
        // EAGAIN: a full backlog, nobody accepting; libpulse's connect would fail.
        guard rc == 0 else { return errno == EAGAIN || errno == EINPROGRESS ? .silent : .absent }
        let packet = authPacket
        let sent = packet.withUnsafeBytes { sysound_send_with_credentials(fd, $0.baseAddress, UInt($0.count)) }
        guard sent == packet.count else { return .closed }
        // pipewire-pulse sends a packet's descriptor and its payload in two
        // writes: read until the command is in, the server closes, or the deadline.
        var reply = [UInt8](repeating: 0, count: 64), got = 0
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = EventLoop.monotonicNow() + UInt64(deadlineMs) * 1000
        while got < 25 {
            let now = EventLoop.monotonicNow()
            let left = Int32(clamping: deadline > now ? (deadline - now + 999) / 1000 : 0)
            let n = poll(&p, 1, left)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return got == 0 ? .silent : .closed }
            let r = reply.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, $0.count - got, Int32(MSG_DONTWAIT)) }
            if r < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if r <= 0 { return .closed }
            got += r
        }
        // A packet: 20 bytes of descriptor, then the tagstruct, whose first
        // value is the command ('L', u32 big-endian).
        guard reply[20] == UInt8(ascii: "L") else { return .closed }
        return .replied(command: reply[21..<25].reduce(0) { $0 << 8 | UInt32($1) })
    }

    /// The native protocol's first packet, as libpulse sends it (no shared
    /// memory offered, an empty cookie: the credentials authorize a client
    /// of the server's own user; another user's server answers with an
    /// error, which is an answer all the same).
    static let authPacket: [UInt8] = {
        func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        let command: UInt32 = 8, tag: UInt32 = 0, version: UInt32 = 32, cookie = 256
        let payload = [UInt8(ascii: "L")] + u32(command) + [UInt8(ascii: "L")] + u32(tag) + [UInt8(ascii: "L")] + u32(version)
            + [UInt8(ascii: "x")] + u32(UInt32(cookie)) + [UInt8](repeating: 0, count: cookie)
        // Descriptor: length, channel (-1: a packet, not audio), offset (2 words), flags.
        return u32(UInt32(payload.count)) + u32(.max) + u32(0) + u32(0) + u32(0) + payload
    }()

    /// An environment variable of the process (`getenv(3)`).
    package static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
