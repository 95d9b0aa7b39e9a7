/// What a Flatpak sandbox's `/.flatpak-info` says about the app in it:
/// written by flatpak-run before the app starts, on a read-only bind the app
/// cannot change (flatpak-run.c), so its `[Application] name` is the app's
/// proved id. Parsed as the GLib key file it is.
package struct FlatpakInfo: Sendable, Equatable {
    /// `[Application] name` (or `[Runtime] name` for a runtime run by itself,
    /// as xdg-desktop-portal reads it).
    package var app: String
    /// `[Instance] instance-id`: the directory under
    /// `$XDG_RUNTIME_DIR/.flatpak/` that names the sandbox's processes.
    package var instance: String
    /// `[Instance] app-path`, `runtime-path`: where `/app` and `/usr` come
    /// from on the host (for messages; files are opened through the app's own
    /// root, never through these).
    package var appPath: String?
    package var runtimePath: String?

    /// The most an info file may hold: Flatpak's are a few KiB.
    package static let maximumLength = 64 * 1024

    package init(app: String, instance: String, appPath: String? = nil, runtimePath: String? = nil) {
        self.app = app
        self.instance = instance
        self.appPath = appPath
        self.runtimePath = runtimePath
    }

    /// Parses an info file's text.
    ///
    /// - Throws: `SandboxError.malformed` naming the line or key that is
    ///   wrong: a line that is neither a group, a key nor a comment; a missing
    ///   or invalid app name; a missing or invalid instance id.
    package init(parsing text: String) throws(SandboxError) {
        var groups: [String: [String: String]] = [:]
        var group: String?
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else { throw .malformed("line \(number + 1) is not a [group]") }
                let name = String(line.dropFirst().dropLast())
                guard groups[name] == nil else { throw .malformed("group [\(name)] appears twice") }
                groups[name] = [:]
                group = name
                continue
            }
            guard let group, let equals = line.firstIndex(of: "=") else {
                throw .malformed("line \(number + 1) is neither a [group] nor a key=value in one")
            }
            let key = String(line[..<equals]).trimmingWhitespace
            guard !key.isEmpty else { throw .malformed("line \(number + 1) has an empty key") }
            // A key's later value wins in GLib; a second one here is suspicious enough to refuse.
            guard groups[group]?[key] == nil else { throw .malformed("[\(group)] \(key) appears twice") }
            groups[group]?[key] = String(line[line.index(after: equals)...]).trimmingWhitespace
        }
        let nameGroup = groups["Runtime"] != nil ? "Runtime" : "Application"
        guard let name = groups[nameGroup]?["name"] else { throw .malformed("no [\(nameGroup)] name") }
        guard Self.isValidAppName(name) else { throw .malformed("[\(nameGroup)] name \"\(name.prefix(80))\" is not a valid app id") }
        guard let instance = groups["Instance"]?["instance-id"] else { throw .malformed("no [Instance] instance-id") }
        guard Self.isValidInstance(instance) else { throw .malformed("[Instance] instance-id \"\(instance.prefix(80))\" is not an instance id") }
        self.init(app: name, instance: instance, appPath: groups["Instance"]?["app-path"], runtimePath: groups["Instance"]?["runtime-path"])
    }

    /// An app id as Flatpak accepts one: at most 255 bytes, three or more
    /// dot-separated elements of ASCII letters, digits, `_` (and `-`, except
    /// in the last), none starting with a digit.
    package static func isValidAppName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 3 else { return false }
        for (i, element) in elements.enumerated() {
            guard let first = element.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            let last = i == elements.count - 1
            for byte in element {
                let ok = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                    || (!last && byte == UInt8(ascii: "-"))
                guard ok else { return false }
            }
        }
        return true
    }

    /// An instance id is one directory name (Flatpak's are decimal numbers):
    /// nothing that could walk out of `$XDG_RUNTIME_DIR/.flatpak/`.
    package static func isValidInstance(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id != "." && id != ".."
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: ".")
            }
    }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}

/// Why a sandboxed caller's identity or view could not be read.
package enum SandboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The info file (or bwrapinfo.json) is not what Flatpak writes.
    case malformed(String)
    /// A system call failed: what was asked, and errno's text.
    case system(String)
    /// The process left while it was being read.
    case gone(String)

    package var description: String {
        switch self {
        case .malformed(let text): "malformed: \(text)"
        case .system(let text): text
        case .gone(let text): text
        }
    }
}
