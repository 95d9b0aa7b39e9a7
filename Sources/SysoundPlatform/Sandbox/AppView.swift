import CSysoundShims
import SysoundCore
import Glibc

/// The files a Flatpak app sees: its own process's root (its `/app`, its
/// runtime's `/usr`, what it was granted), not the host's and not its bus
/// proxy's (which Flatpak runs with the host's files). Found as
/// xdg-desktop-portal finds it: `$XDG_RUNTIME_DIR/.flatpak/INSTANCE/bwrapinfo.json`
/// names the sandbox's first process (`child-pid`, written by bwrap's
/// `--info-fd`), and that process's own info file must name the same
/// instance and app.
package final class AppView: @unchecked Sendable {
    package let app: String
    /// `/proc/CHILD/root`, held open (O_PATH): paths resolve inside it only.
    private let root: Int32

    private init(app: String, root: Int32) {
        self.app = app
        self.root = root
    }

    deinit { close(root) }

    /// The view of the app `info` describes.
    ///
    /// - Parameter runtimeDirectory: the daemon's `$XDG_RUNTIME_DIR`, where
    ///   Flatpak keeps its instance directories.
    /// - Throws: `SandboxError` when the instance directory is missing or
    ///   malformed, or its process is gone or belongs to another sandbox.
    package static func open(for info: FlatpakInfo, runtimeDirectory: String) throws(SandboxError) -> AppView {
        guard FlatpakInfo.isValidInstance(info.instance) else { throw .malformed("instance id \"\(info.instance)\"") }
        let path = "\(runtimeDirectory)/.flatpak/\(info.instance)/bwrapinfo.json"
        let child = try ProcessHandle(pid: childPID(bwrapInfo: path))
        let proc = try child.openProcDirectory()
        defer { close(proc) }
        let root = sysound_open_process_root(proc)
        guard root >= 0 else { throw .system("cannot open the root of \(info.app)'s process \(child.pid): \(String(cString: strerror(errno)))") }
        // The instance's process must be this app's sandbox: a stale
        // bwrapinfo.json whose pid was reused names someone else.
        let own: FlatpakInfo?
        do throws(SandboxError) {
            own = try SandboxProbe.readFile(in: root, "/.flatpak-info", limit: FlatpakInfo.maximumLength).map { text throws(SandboxError) in
                try FlatpakInfo(parsing: text)
            }
        } catch {
            close(root)
            throw error
        }
        guard let own, own.instance == info.instance, own.app == info.app else {
            close(root)
            throw .gone("process \(child.pid) of \(path) is not \(info.app)'s instance \(info.instance) any more")
        }
        return AppView(app: info.app, root: root)
    }

    /// `child-pid` of a bwrapinfo.json.
    static func childPID(bwrapInfo path: String) throws(SandboxError) -> pid_t {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)
        guard fd >= 0 else { throw .system("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &bytes, bytes.count)
        // Malformed JSON and a missing child-pid are the same answer: no process to look in.
        guard n > 0, n < bytes.count,
            let object = try? PositionedJSON(parsing: String(decoding: bytes[..<n], as: UTF8.self)),
            case .number(let number, _)? = object["child-pid"], number >= 1, number <= Double(Int32.max),
            let pid = pid_t(exactly: number)
        else { throw .malformed("\(path) has no child-pid") }
        return pid
    }

    /// Opens `path` as the app sees it, for reading: resolved inside the
    /// app's root (an absolute symbolic link, `..`, never leave it; /proc's
    /// magic links are refused). The caller closes the fd.
    ///
    /// - Throws: `.system` with the reason (no such file in the sandbox, not
    ///   a regular file, a link that leads out).
    package func openFile(_ path: String) throws(SandboxError) -> Int32 {
        guard path.hasPrefix("/") else { throw .system("\(path) is not an absolute path") }
        let fd = sysound_open_in_root(root, path, O_RDONLY | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            switch e {
            case ENOENT: throw .system("\(path) does not exist in \(app)'s sandbox")
            case ELOOP, EXDEV: throw .system("\(path) leads out of \(app)'s sandbox through a link")
            default: throw .system("\(path) cannot be opened in \(app)'s sandbox: \(String(cString: strerror(e)))")
            }
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .system("\(path) is not a regular file in \(app)'s sandbox")
        }
        return fd
    }
}
