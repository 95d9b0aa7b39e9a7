#if canImport(Glibc)
import Glibc
#endif
import SysoundCore

/// Who set the screen lock last, recorded beside the `locked` control file
/// (in `locked-by`) so that `sysound status` can say `locked: on (logind
/// session 3)`.
///
/// The record names the `locked` file it belongs to by identity (device,
/// inode, modification time, size). Once anything else writes `locked` — the
/// CLI's atomic rename, a person's `echo 1 >` — the identity no longer
/// matches and the value is the control file's own: no writer has to clear
/// the record, and the CLI and the shell stay as they are.
package struct LockOrigin: Sendable {
    package static let fileName = "locked-by"
    /// A label and an identity line fit easily; more is not a record.
    static let maximumLength = 256

    package let files: ControlFiles

    package init(files: ControlFiles) {
        self.files = files
    }

    /// Where the current lock value came from, for `sysound status`: the label
    /// of the source that wrote the `locked` file as it is now (`logind
    /// session 3`), else `control file` (a person, the CLI, a script), or
    /// `default` when there is no `locked` file.
    package func describe() -> String {
        guard let identity = Self.identity(of: files.directory.file(.locked)) else { return "default" }
        return label(matching: identity) ?? "control file"
    }

    /// Records `label` as the writer of the `locked` file as it is now; call
    /// right after writing it. Atomic, like the control files.
    package func record(_ label: String) throws(ControlFileError) {
        let path = files.directory.file(.locked)
        guard let identity = Self.identity(of: path) else {
            throw ControlFileError(path: path, problem: .unreadable(.noSuchFileOrDirectory))
        }
        // One line of printable text: the label is ours, but a session id comes from the bus.
        let clean = String(label.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(120).map(Character.init))
        try files.write(named: Self.fileName, clean + "\n" + identity)
    }

    private func label(matching identity: String) -> String? {
        // A missing or unreadable locked-by only loses the label: the lock itself is the `locked` file.
        guard case .content(let text)? = try? ControlFiles.readBounded(files.directory.file(Self.fileName), limit: Self.maximumLength)
        else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, lines[1] == identity, !lines[0].isEmpty else { return nil }
        return String(lines[0])
    }

    /// `dev ino mtime-sec mtime-nsec size` of the file (not followed if a symlink).
    static func identity(of path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return "\(st.st_dev) \(st.st_ino) \(st.st_mtim.tv_sec) \(st.st_mtim.tv_nsec) \(st.st_size)"
    }
}
