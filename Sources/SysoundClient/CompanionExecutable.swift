import Glibc
import SysoundCore

/// The service's other executables (`sysound-cli`, `sysound-play`, `sysound-engine`), which
/// `sysound` starts or becomes: installed beside it, or in libexec.
///
/// In the client library because both `sysound` (Foundation-free) and
/// `sysound-cli` look them up, and the same way.
package enum CompanionExecutable {
    /// Where the executable `name` is: `$variable` if set and not empty, else
    /// beside the running executable (`readlink(2)` of /proc/self/exe), else
    /// in `PREFIX/libexec/sysound` of the prefix the running executable is
    /// installed under (`InstallLayout`), else /usr/local/libexec/sysound,
    /// else /usr/libexec/sysound — the first one `access(2)` finds executable.
    package static func find(_ name: String, variable: String) throws(CompanionMissing) -> String {
        if let chosen = getenv(variable).map({ String(cString: $0) }), !chosen.isEmpty { return chosen }
        var candidates: [String] = []
        if let me = runningExecutable(), let slash = me.lastIndex(of: "/") {
            candidates.append(String(me[..<slash]) + "/" + name)
            if let prefix = InstallLayout.prefix(ofExecutable: me) {
                candidates.append(InstallLayout.path(prefix, InstallLayout.libexecSubdirectory) + "/" + name)
            }
        }
        candidates += ["/usr/local/libexec/sysound/" + name, "/usr/libexec/sysound/" + name]
        for candidate in candidates where access(candidate, X_OK) == 0 { return candidate }
        throw CompanionMissing(name: name, variable: variable, candidates: candidates)
    }

    /// The path of this process's executable (`readlink(2)` of /proc/self/exe), symlinks resolved.
    static func runningExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        return n > 0 ? String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }
}

/// A companion executable is in none of the places it is looked for.
package struct CompanionMissing: Error, Equatable, CustomStringConvertible {
    package var name: String
    package var variable: String
    package var candidates: [String]

    package var description: String {
        "\(name) is missing (looked in \(candidates.joined(separator: ", "))); build it with `swift build --product \(name)` or set \(variable)"
    }
}
