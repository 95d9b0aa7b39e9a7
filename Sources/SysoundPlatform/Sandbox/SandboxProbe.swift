import CSysoundShims
import Glibc

/// Reads a process's sandbox from the process itself, as xdg-desktop-portal
/// does (xdp-app-info-flatpak.c, -snap.c): Flatpak's `/.flatpak-info` in the
/// process's own root, else a confined Snap's AppArmor label, else the host.
/// What cannot be read is `.unknown`, never `.host`.
package enum SandboxProbe {
    /// The identity of `process`.
    package static func identity(of process: ProcessHandle) -> SandboxIdentity {
        do throws(SandboxError) {
            let proc = try process.openProcDirectory()
            defer { close(proc) }
            if let info = try flatpakInfo(proc: proc, pid: process.pid) { return .flatpak(info) }
            if let snap = try snapName(proc: proc) { return .snap(name: snap) }
            return .host
        } catch {
            return .unknown(reason: error.description)
        }
    }

    /// The info file in the process's root, nil when there is none (not Flatpak).
    static func flatpakInfo(proc: Int32, pid: pid_t) throws(SandboxError) -> FlatpakInfo? {
        let root = sysound_open_process_root(proc)
        guard root >= 0 else {
            let e = errno
            // A FUSE root (a toolbox container) refuses even its owner; Flatpak never has one.
            if e == EACCES, isFuseRoot(pid: pid) { return nil }
            if e == ENOENT || e == ESRCH { throw .gone("process \(pid) has exited") }
            throw .system("cannot open the root of process \(pid): \(String(cString: strerror(e)))")
        }
        defer { close(root) }
        guard let text = try readFile(in: root, "/.flatpak-info", limit: FlatpakInfo.maximumLength) else { return nil }
        return try FlatpakInfo(parsing: text)
    }

    /// The snap's name from an AppArmor label `snap.NAME.APP` or
    /// `snap.NAME.hook.HOOK` (mode appended: ` (enforce)`); nil when the
    /// process is not confined by a snap's profile (no AppArmor, another
    /// label, `unconfined`: classic and devmode snaps are not sandboxed).
    static func snapName(proc: Int32) throws(SandboxError) -> String? {
        // With several LSMs stacked attr/current is the first one's; AppArmor's own comes first.
        for file in ["attr/apparmor/current", "attr/current"] {
            let fd = openat(proc, file, O_RDONLY | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &buffer, buffer.count)
            // EINVAL: no LSM answers here; then the next, or the host.
            guard n > 0 else { continue }
            let label = String(decoding: buffer[..<n].prefix { $0 != 0 && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            return try snapName(label: label)
        }
        return nil
    }

    /// `snap.NAME.APP (enforce)` → NAME; nil for a label that is not a snap's.
    package static func snapName(label: String) throws(SandboxError) -> String? {
        let profile = label.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
        guard profile.hasPrefix("snap.") else { return nil }
        let parts = profile.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, isSnapName(parts[1]), !parts[2].isEmpty else {
            throw .malformed("AppArmor label \"\(label.prefix(80))\" starts as a snap's but names none")
        }
        return String(parts[1])
    }

    /// A snap (instance) name: lower-case letters, digits, `-`, and `_KEY` for a parallel instance.
    static func isSnapName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.count <= 52
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    /// Reads a small regular file as seen from `root` (nothing resolved
    /// outside it); nil when it does not exist.
    static func readFile(in root: Int32, _ path: String, limit: Int) throws(SandboxError) -> String? {
        let fd = sysound_open_in_root(root, path, O_RDONLY | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT { return nil }
            throw .system("cannot open \(path) in the sandbox: \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw .malformed("\(path) is not a regular file") }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("cannot read \(path) in the sandbox: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw .malformed("\(path) is larger than \(limit) bytes") }
        guard let text = String(validating: bytes[..<count], as: UTF8.self) else { throw .malformed("\(path) is not UTF-8 text") }
        return text
    }

    static func isFuseRoot(pid: pid_t) -> Bool { sysound_is_fuse("/proc/\(pid)/root") == 1 }
}
