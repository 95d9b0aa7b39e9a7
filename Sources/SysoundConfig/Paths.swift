import Foundation

/// Path helpers shared by the configuration and theme loaders.
enum Paths {
    static func join(_ base: String, _ component: String) -> String {
        if component.hasPrefix("/") { return component }
        return base.hasSuffix("/") ? base + component : base + "/" + component
    }

    /// `~/x` → `$HOME/x`; relative → under `base`; absolute unchanged. Normalized.
    static func resolve(_ path: String, relativeTo base: String, environment: [String: String]) -> String {
        var p = path
        if p == "~" || p.hasPrefix("~/") {
            let home = environment["HOME"] ?? NSHomeDirectory()
            p = home + p.dropFirst()
        }
        return (join(base, p) as NSString).standardizingPath
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    static func isFile(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && !isDir.boolValue
    }

    static func directory(of path: String) -> String { (path as NSString).deletingLastPathComponent }
}
