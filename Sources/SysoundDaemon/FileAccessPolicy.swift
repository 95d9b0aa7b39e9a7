import Glibc
import SysoundCore
import SysoundFeedback

/// Which files `play file=PATH` may open for a peer.
///
/// The daemon reads files with its own rights, so a request from another user
/// (a `socket_group` member) could otherwise make it read — and play, and
/// report the length of — any file the daemon's user can read. For such a
/// peer the path must resolve (symbolic links followed by `realpath(3)`) to a
/// regular file inside one of the sound directories, and the resolved path is
/// what gets opened, so a link cannot point elsewhere between check and open.
/// `[server] others_may_play_any_file = true` lifts the directory rule. The
/// daemon's own user and root may name any file; the decoder still opens only
/// regular files.
package struct FileAccessPolicy: Sendable, Equatable {
    /// The daemon's user.
    package var ownerUID: uid_t
    /// Where other users' files must be: the theme's sound directories.
    package var soundDirectories: [String]
    package var othersMayPlayAnyFile: Bool

    package init(ownerUID: uid_t = getuid(), soundDirectories: [String], othersMayPlayAnyFile: Bool = false) {
        self.ownerUID = ownerUID
        self.soundDirectories = soundDirectories
        self.othersMayPlayAnyFile = othersMayPlayAnyFile
    }

    /// The path to open for `path` asked by `peer`.
    ///
    /// - Throws: `FeedbackError` `.denied` for a path outside the sound
    ///   directories, `.badFile` for a relative path, a missing file or one
    ///   that is not a regular file; each message names the path.
    package func path(toOpen path: String, for peer: PeerCredentials) throws(FeedbackError) -> String {
        if peer.uid == ownerUID || peer.uid == 0 { return path }
        guard path.hasPrefix("/") else {
            throw FeedbackError(.badFile, "\(path): a sound file must be given by its absolute path")
        }
        guard let real = Self.realPath(path) else {
            throw FeedbackError(.badFile, "\(path): no such file, or a directory on its way cannot be searched")
        }
        var st = stat()
        guard stat(real, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw FeedbackError(.badFile, "\(path) is not a regular sound file")
        }
        if othersMayPlayAnyFile { return real }
        let roots = soundDirectories.compactMap(Self.realPath)
        guard roots.contains(where: { real.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) else {
            throw FeedbackError(
                .denied,
                "\(path) is outside the sound directories (\(soundDirectories.joined(separator: ", "))); other users may play only files inside them ([server] others_may_play_any_file = true allows any)")
        }
        return real
    }

    /// `realpath(3)`: the absolute path with every symbolic link, `.` and `..` resolved.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
