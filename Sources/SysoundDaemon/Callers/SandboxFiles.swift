import Glibc
import SysoundCore
import SysoundFeedback
import SysoundPlatform

/// A sound file opened for a caller in the caller's own view (or handed
/// over by it as a descriptor). The player opens it again by
/// `/proc/self/fd/N`, which names this very open file and resolves nothing
/// anew; the fd lives until the play has decoded it.
final class OpenedSoundFile: @unchecked Sendable {
    let fd: Int32
    /// The file as the caller named it, for messages.
    let shown: String

    init(fd: Int32, shown: String) {
        self.fd = fd
        self.shown = shown
    }

    deinit { close(fd) }

    var path: String { "/proc/self/fd/\(fd)" }

    /// A message about `path` told in the caller's words.
    func explain(_ message: String) -> String { message.replacing(path, with: shown) }
}

/// Where a caller's sound file comes from. The host's: the path as the host
/// sees it, under `FileAccessPolicy` (another user's only inside the sound
/// directories). A Flatpak app's: the app's own view of the files
/// (`AppView`), never the host's. A sandbox whose view sysound cannot open
/// (a Snap, one that could not be read): only the sound directories' files,
/// as another user's, whatever `others_may_play_any_file` says. Or a file
/// descriptor (`sound-file` of type `h`, as the notification portal takes
/// sounds), from anyone.
enum SandboxFiles {
    /// What to do instead, said in every refusal of a sandboxed caller.
    static let advice = "name a file the app itself can open (inside its /app, or one it was granted), or hand the open file over as a descriptor (a sound-file hint of type h)"

    /// What to play for `path`, named by `caller` whose sandbox is
    /// `identity`; the opened file (if any) must live until it is decoded.
    ///
    /// - Throws: `FeedbackError` `.denied` naming the path and what to do;
    ///   `.badFile` as `FileAccessPolicy` throws it.
    static func source(
        for path: String, identity: SandboxIdentity, caller: PeerCredentials, policy: FileAccessPolicy, runtimeDirectory: String?
    ) throws(FeedbackError) -> (PlayRequest.Source, OpenedSoundFile?) {
        switch identity {
        case .host:
            return (.file(try policy.path(toOpen: path, for: caller)), nil)
        case .flatpak(let info):
            guard let runtimeDirectory else {
                throw FeedbackError(.denied, "\(path): sysound has no XDG_RUNTIME_DIR to find \(info.app)'s sandbox in; \(advice)")
            }
            do throws(SandboxError) {
                let view = try AppView.open(for: info, runtimeDirectory: runtimeDirectory)
                let file = OpenedSoundFile(fd: try view.openFile(path), shown: path)
                return (.file(file.path), file)
            } catch {
                throw FeedbackError(.denied, "\(error); \(advice)")
            }
        case .snap, .unknown:
            var strict = policy
            strict.othersMayPlayAnyFile = false
            let stranger = PeerCredentials(pid: 0, uid: uid_t.max, gid: gid_t.max)
            do throws(FeedbackError) {
                return (.file(try strict.path(toOpen: path, for: stranger)), nil)
            } catch where error.code == .denied {
                throw FeedbackError(
                    .denied,
                    "\(path): sysound cannot see the files of a \(identity.kind) sandbox, only the sound directories (\(policy.soundDirectories.joined(separator: ", "))) are open to it; \(advice)")
            }
        }
    }

    /// Takes a descriptor the caller handed over (a copy of it: `borrowed`
    /// stays its message's).
    ///
    /// - Throws: `FeedbackError` `.badFile` for a descriptor that is not a
    ///   regular file open for reading.
    static func adopt(_ borrowed: Int32) throws(FeedbackError) -> OpenedSoundFile {
        let fd = fcntl(borrowed, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw FeedbackError(.badFile, "the sound-file descriptor cannot be used: \(String(cString: strerror(errno)))") }
        let file = OpenedSoundFile(fd: fd, shown: "the sound-file descriptor")
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw FeedbackError(.badFile, "the sound-file descriptor is not a regular file; open the sound file itself")
        }
        let mode = fcntl(fd, F_GETFL) & O_ACCMODE
        guard mode == O_RDONLY || mode == O_RDWR else {
            throw FeedbackError(.badFile, "the sound-file descriptor is not open for reading")
        }
        return file
    }
}
