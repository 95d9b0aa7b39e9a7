import Glibc

/// Where the daemon's socket is: `$STATE/socket`, the state directory picked
/// by the rule of `StateDirectory.resolve` (SysoundState; DESIGN.md), which
/// the full CLI and the daemon use.
///
/// Restated here, reading each variable with `getenv(3)`, because that
/// function takes the environment as a dictionary, and building one costs
/// this process a tenth of its run time. FastPathTests (Tests/EndToEndTests)
/// check that both find the same daemon.
enum SocketLocation {
    /// The socket in `stateDirectory` if given and not empty, else in
    /// `$SYSOUND_STATE_DIR`, `$XDG_RUNTIME_DIR/sysound` (if absolute),
    /// `/run/user/<uid>/sysound` if `/run/user/<uid>` is a directory
    /// (`stat(2)`), else `/tmp/sysound-<uid>`.
    static func path(stateDirectory: String?) -> String {
        stateDirectoryPath(explicit: stateDirectory) + "/socket"
    }

    static func stateDirectoryPath(explicit: String?) -> String {
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

    private static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
