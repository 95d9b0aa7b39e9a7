/// Where an installed sysound keeps its parts, relative to one prefix, the
/// rule `make install` follows (Makefile: BINDIR, LIBEXECDIR, DATADIR,
/// SYSCONFDIR). The executables find the rest from their own location, so a
/// tree installed with any `PREFIX`, or moved afterwards, works without
/// environment variables:
///
///     PREFIX/bin/sysound
///     PREFIX/libexec/sysound/{sysound-cli,sysound-play,sysound-engine}
///     PREFIX/share/sysound/{Sounds,config/sysound.toml}
///     PREFIX/etc/sysound/sysound.toml     (the administrator's; /etc for /usr)
package enum InstallLayout {
    /// The subdirectory of the prefix that holds the companion executables.
    package static let libexecSubdirectory = "libexec/sysound"
    /// The subdirectory of the prefix that holds the theme and the shipped configuration.
    package static let dataSubdirectory = "share/sysound"

    /// The prefix an executable at `executable` was installed under: `P` for
    /// `P/bin/NAME` or `P/libexec/sysound/NAME`; nil for any other place (a
    /// build directory, say).
    package static func prefix(ofExecutable executable: String) -> String? {
        var parts = executable.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 2 else { return nil }
        parts.removeLast()
        if parts.last == "bin" {
            parts.removeLast()
        } else if parts.suffix(2) == ["libexec", "sysound"] {
            parts.removeLast(2)
        } else {
            return nil
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `PREFIX/sub`, without a doubled slash for the root prefix.
    package static func path(_ prefix: String, _ sub: String) -> String {
        prefix.hasSuffix("/") ? prefix + sub : prefix + "/" + sub
    }

    /// The system-wide configuration directory of a prefix: `/etc` for `/usr`
    /// (as the Filesystem Hierarchy Standard has it), else `PREFIX/etc`.
    package static func sysconfDirectory(prefix: String) -> String {
        prefix == "/usr" ? "/etc" : path(prefix, "etc")
    }
}
