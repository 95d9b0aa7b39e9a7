#if canImport(Glibc)
import Glibc
#endif
import SysoundCore
import SystemPackage

/// The per-user directory holding the control files and the daemon's socket.
///
/// Where it is, in order: an explicit path (`--state-dir`, config),
/// `$SYSOUND_STATE_DIR`, `$XDG_RUNTIME_DIR/sysound`, `/run/user/<uid>/sysound` if `/run/user/<uid>`
/// exists, else `/tmp/sysound-<uid>`. It is created mode 0700; one owned by
/// another user, or writable by others, is refused: whoever controls it
/// controls what this user hears.
package struct StateDirectory: Sendable, Equatable, CustomStringConvertible {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    package var description: String { path }

    /// The path of a control file or of the socket in this directory.
    package func file(_ name: String) -> String { path + "/" + name }
    package func file(_ control: ControlFile) -> String { file(control.fileName) }
    package var socketPath: String { file("socket") }

    /// Picks the directory as docs/configuration.md ("The state directory") says, without touching the file system
    /// beyond checking whether `/run/user/<uid>` exists.
    package static func resolve(explicit: String? = nil, environment: [String: String] = Environment.current) -> StateDirectory {
        StateDirectory(path: StateDirectoryLocation.path(explicit: explicit) { environment[$0] })
    }

    /// Creates the directory (mode 0700, parents as needed) if it is missing and
    /// checks that it is safe to use.
    package func prepare() throws(StateDirectoryError) {
        var st = stat()
        if lstat(path, &st) != 0 {
            guard errno == ENOENT else { throw .inaccessible(path: path, Errno(rawValue: errno)) }
            try createParents()
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw .cannotCreate(path: path, Errno(rawValue: errno))
            }
            guard lstat(path, &st) == 0 else { throw .inaccessible(path: path, Errno(rawValue: errno)) }
        }
        try Self.validate(path: path, st)
    }

    /// Lets the members of `group` reach the socket: the directory becomes
    /// mode 0710 with that group (they may open names in it, but not list it
    /// or create anything); nil makes it 0700 again. `validate` accepts both,
    /// since neither lets others write (`chown(2)`, `chmod(2)`).
    package func share(withGroup group: gid_t?) throws(StateDirectoryError) {
        if let group {
            guard chown(path, uid_t.max, group) == 0 else { throw .cannotShare(path: path, Errno(rawValue: errno)) }
        }
        guard chmod(path, group == nil ? 0o700 : 0o710) == 0 else { throw .cannotShare(path: path, Errno(rawValue: errno)) }
    }

    /// Checks an existing directory without creating anything (for readers).
    package func validateExisting() throws(StateDirectoryError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw .inaccessible(path: path, Errno(rawValue: errno)) }
        try Self.validate(path: path, st)
    }

    static func validate(path: String, _ st: stat) throws(StateDirectoryError) {
        guard (st.st_mode & S_IFMT) == S_IFDIR else { throw .notADirectory(path: path) }
        let uid = getuid()
        guard st.st_uid == uid || uid == 0 else { throw .foreignOwner(path: path, owner: st.st_uid) }
        guard st.st_mode & 0o022 == 0 else { throw .writableByOthers(path: path) }
    }

    private func createParents() throws(StateDirectoryError) {
        var prefix = ""
        for component in path.split(separator: "/").dropLast() {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw .cannotCreate(path: prefix, Errno(rawValue: errno))
            }
        }
    }
}

/// Why the state directory cannot be used.
package enum StateDirectoryError: Error, Equatable, Sendable, CustomStringConvertible {
    case inaccessible(path: String, Errno)
    case cannotCreate(path: String, Errno)
    case notADirectory(path: String)
    case foreignOwner(path: String, owner: uid_t)
    case writableByOthers(path: String)
    case cannotShare(path: String, Errno)

    package var description: String {
        switch self {
        case .inaccessible(let p, let e):
            "state directory \(p) cannot be read (\(e)); check its permissions or pass --state-dir"
        case .cannotCreate(let p, let e):
            "cannot create state directory \(p) (\(e)); pass --state-dir with a directory you own"
        case .notADirectory(let p):
            "state directory \(p) exists but is not a directory; remove it or pass --state-dir"
        case .foreignOwner(let p, let owner):
            "state directory \(p) belongs to uid \(owner), not to you; refusing to use it (pass --state-dir)"
        case .cannotShare(let p, let e):
            "cannot open state directory \(p) to the socket group (\(e)); the daemon's user must own it and belong to the group"
        case .writableByOthers(let p):
            "state directory \(p) is writable by other users; run `chmod 700 \(p)` or pass --state-dir"
        }
    }
}

/// The process environment as a dictionary, read without Foundation.
package enum Environment {
    package static var current: [String: String] {
        var result: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let pair = String(cString: entry)
            if let eq = pair.firstIndex(of: "=") {
                result[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            p += 1
        }
        return result
    }
}
