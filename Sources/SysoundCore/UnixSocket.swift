import Glibc

/// Thin wrappers over the socket calls the client, the daemon and the audio
/// engine's sound-server probe share. `package` access: not library API.
package enum UnixSocket {
    /// `sun_path` holds 108 bytes with the terminating NUL.
    package static let maximumPathLength = 107

    /// Calls `body` with a `sockaddr_un` for `path` (a leading `@` names an
    /// abstract socket, as NOTIFY_SOCKET may). Nil if the path is too long or empty.
    package static func withAddress<R>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R
    ) -> R? {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let abstract = bytes[0] == UInt8(ascii: "@")
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            if abstract { raw[0] = 0 }
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        // Abstract names are not NUL-terminated: the length says where they end.
        let length = abstract ? pathOffset + bytes.count : MemoryLayout<sockaddr_un>.size
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    /// A new SOCK_SEQPACKET unix socket with close-on-exec (`socket(2)`).
    package static func seqpacket() -> Int32 {
        socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    /// Sets SO_RCVTIMEO and SO_SNDTIMEO (`setsockopt(2)`); nil or ≤ 0 means no timeout.
    @discardableResult
    package static func setTimeout(_ fd: Int32, milliseconds: Int?) -> Bool {
        let ms = max(milliseconds ?? 0, 0)
        var tv = timeval(tv_sec: ms / 1000, tv_usec: (ms % 1000) * 1000)
        let size = socklen_t(MemoryLayout<timeval>.size)
        return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, size) == 0
            && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, size) == 0
    }

    /// Sends one datagram without raising SIGPIPE (`send(2)` with MSG_NOSIGNAL);
    /// returns 0 or the errno.
    package static func sendPacket(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        while true {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n >= 0 { return 0 }
            if errno != EINTR { return errno }
        }
    }

    /// The outcome of receiving one datagram.
    package enum Received {
        /// The datagram; `size` is its real length, more than `bytes.count` if it was cut.
        case packet(bytes: [UInt8], size: Int)
        /// recv returned 0: the peer closed, or sent an empty datagram.
        case zero
        case failure(Int32)
    }

    /// Receives one datagram of at most `capacity` bytes (`recv(2)` with MSG_TRUNC,
    /// which makes it return the datagram's real length).
    ///
    /// The buffer is not zeroed first: filling 64 KiB to receive a reply of a
    /// few dozen bytes cost the CLI's fast path 16 page faults.
    package static func receivePacket(_ fd: Int32, capacity: Int, flags: Int32 = 0) -> Received {
        while true {
            var size = 0, code: Int32 = 0
            let buffer = [UInt8](unsafeUninitializedCapacity: capacity) { raw, initialized in
                size = recv(fd, raw.baseAddress, capacity, Int32(MSG_TRUNC) | flags)
                code = size < 0 ? errno : 0
                initialized = min(max(size, 0), capacity)
            }
            if size > 0 { return .packet(bytes: buffer, size: size) }
            if size == 0 { return .zero }
            if code != EINTR { return .failure(code) }
        }
    }

    /// Closes `fd`, retrying nothing: on Linux the descriptor is gone even on EINTR.
    package static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// `strerror(3)` text for `code`.
    package static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
