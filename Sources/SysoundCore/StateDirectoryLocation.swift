#if canImport(Glibc)
import Glibc
#endif

/// Where the state directory is (docs/configuration.md, "The state directory"), the one rule for the daemon,
/// the CLIs and the library: `explicit` if given and not empty, else
/// `$SYSOUND_STATE_DIR`, `$XDG_RUNTIME_DIR/sysound` (if absolute),
/// `/run/user/<uid>/sysound` if `/run/user/<uid>` is a directory (`stat(2)`),
/// else `/tmp/sysound-<uid>`.
package enum StateDirectoryLocation {
    /// - Parameter variable: reads an environment variable; `getenv(3)` by
    ///   default, which costs the `sysound` fast path less than building the
    ///   environment as a dictionary.
    package static func path(explicit: String?, variable: (String) -> String? = environmentVariable) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let chosen = variable("SYSOUND_STATE_DIR"), !chosen.isEmpty { return chosen }
        if let runtime = variable("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") { return runtime + "/sysound" }
        let uid = getuid()
        var st = stat()
        if stat("/run/user/\(uid)", &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            return "/run/user/\(uid)/sysound"
        }
        return "/tmp/sysound-\(uid)"
    }

    /// `getenv(3)`.
    package static func environmentVariable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
