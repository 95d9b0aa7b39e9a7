import FoundationEssentials
import Glibc

/// Path helpers shared by the configuration and theme loaders.
enum Paths {
    static func join(_ base: String, _ component: String) -> String {
        if component.hasPrefix("/") { return component }
        return base.hasSuffix("/") ? base + component : base + "/" + component
    }

    /// `~/x` → `$HOME/x`; relative → under `base`; absolute unchanged. Standardized (`standardize`).
    static func resolve(_ path: String, relativeTo base: String, environment: [String: String]) -> String {
        var p = path
        if p == "~" || p.hasPrefix("~/") {
            let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
            p = home + p.dropFirst()
        }
        return standardize(join(base, p))
    }

    /// An absolute path as the file system has it: symbolic links resolved
    /// as far as the path exists, `.`, `..` and empty components gone (a
    /// sound named through a link is known by its target: two names for one
    /// file are one file). A relative path is returned as it is.
    static func standardize(_ path: String) -> String {
        guard path.hasPrefix("/") else { return path }
        if let real = realPath(path) { return real }
        // Not all of it exists: the existing part resolved, the rest applied to it.
        var resolved = ""
        for component in path.split(separator: "/") where component != "." {
            if component == ".." {
                resolved = directory(of: resolved)
                if resolved == "/" { resolved = "" }
                continue
            }
            let next = resolved + "/" + component
            resolved = realPath(next) ?? next
            if resolved == "/" { resolved = "" }
        }
        return resolved.isEmpty ? "/" : resolved
    }

    /// `realpath(3)`; nil when the path does not exist (or cannot be read).
    private static func realPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir
    }

    static func isFile(_ path: String) -> Bool {
        var isDir = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && !isDir
    }

    /// The path without its last component (and the slashes after it): `/a/b/` → `/a`, `/a` → `/`, `a` → ``.
    static func directory(of path: String) -> String {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "" }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }
}
