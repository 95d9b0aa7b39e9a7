#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SysoundEventLoop

/// Watches the device directory (e.g. `/dev/input`) for nodes that appear,
/// change permissions or go away. When the directory itself does not exist
/// yet (no input device at boot), it watches the parent until it appears.
final class DirectoryWatcher {
    /// What the engine acts on.
    enum Change: Equatable {
        /// A node appeared or its attributes changed: try to open it.
        case candidate(String)
        /// A node went away.
        case removed(String)
        /// The directory (re)appeared: scan it.
        case rescan
    }

    let directory: String
    let fd: Int32
    private var directoryWatch: Int32 = -1
    private var parentWatch: Int32 = -1

    /// Opens an inotify instance (inotify_init1) and starts watching.
    init(directory: String) throws(HapticsError) {
        self.directory = directory
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw .watchFailed(path: directory, call: "inotify_init1", errno: errno) }
        do throws(HapticsError) {
            _ = try watch()
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit { Glibc.close(fd) }

    /// Watches the directory, or its parent if it is missing (inotify_add_watch).
    /// Returns whether the directory itself is watched.
    private func watch() throws(HapticsError) -> Bool {
        let mask = UInt32(IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)
        directoryWatch = inotify_add_watch(fd, directory, mask)
        if directoryWatch >= 0 { return true }
        guard errno == ENOENT else {
            throw .watchFailed(path: directory, call: "inotify_add_watch", errno: errno)
        }
        let parent = Self.parent(of: directory)
        parentWatch = inotify_add_watch(fd, parent, UInt32(IN_CREATE | IN_MOVED_TO))
        guard parentWatch >= 0 else {
            throw .watchFailed(path: parent, call: "inotify_add_watch", errno: errno)
        }
        // It may have appeared between the two calls.
        directoryWatch = inotify_add_watch(fd, directory, mask)
        return directoryWatch >= 0
    }

    /// Reads what is pending (non-blocking) and says what changed.
    func changes() -> [Change] {
        var result: [Change] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            let events = buffer.withUnsafeBytes { InotifyEvent.parse(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            for event in events { result += interpret(event) }
        }
        return result
    }

    func interpret(_ event: InotifyEvent) -> [Change] {
        if event.wd == directoryWatch {
            if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                directoryWatch = -1
                if (try? watch()) == true { return [.rescan] }
                return []
            }
            guard Self.isEventNode(event.name) else { return [] }
            let path = directory + "/" + event.name
            if event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 { return [.removed(path)] }
            if event.mask & UInt32(IN_CREATE | IN_ATTRIB | IN_MOVED_TO) != 0 { return [.candidate(path)] }
            return []
        }
        if event.wd == parentWatch, directoryWatch < 0, event.name == Self.basename(of: directory) {
            if (try? watch()) == true { return [.rescan] }
        }
        return []
    }

    /// The event nodes in the directory now (opendir/readdir), sorted.
    func scan() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var paths: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if Self.isEventNode(name) { paths.append(directory + "/" + name) }
        }
        return paths.sorted()
    }

    /// Only evdev nodes (`event0`, `event12`) can do force feedback.
    static func isEventNode(_ name: String) -> Bool {
        name.hasPrefix("event") && name.count > 5 && name.dropFirst(5).allSatisfy(\.isNumber)
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func basename(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
