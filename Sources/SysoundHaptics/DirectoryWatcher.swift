#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SysoundPlatform

/// Watches the device directory (e.g. `/dev/input`) for nodes that appear,
/// change permissions or go away, with inotify sources on the engine's event
/// loop (`EventLoop.addInotify`, which decodes the kernel's records). When
/// the directory itself does not exist yet (no input device at boot), it
/// watches the parent until it appears. Loop thread only. The haptics
/// engine finds its vibrators with it, the alert slider its switch.
package final class DirectoryWatcher {
    /// What the engine acts on.
    package enum Change: Equatable, Sendable {
        /// A node appeared or its attributes changed: try to open it.
        case candidate(String)
        /// A node went away.
        case removed(String)
        /// The directory (re)appeared: scan it.
        case rescan
        /// The directory could not be watched again: hotplug goes unnoticed.
        case watchFailed(HapticsError)
    }

    package let directory: String
    private let loop: EventLoop
    private let onChange: (Change) -> Void
    private var directorySource: EventSource?
    private var parentSource: EventSource?

    private static let directoryMask = UInt32(IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Starts watching; `onChange` is called on the loop thread.
    package init(directory: String, loop: EventLoop, onChange: @escaping (Change) -> Void) throws(HapticsError) {
        self.directory = directory
        self.loop = loop
        self.onChange = onChange
        _ = try watch()
    }

    deinit { cancel() }

    package func cancel() {
        directorySource?.cancel()
        parentSource?.cancel()
        directorySource = nil
        parentSource = nil
    }

    /// Watches the directory, or its parent if it is missing. Returns whether
    /// the directory itself is watched.
    private func watch() throws(HapticsError) -> Bool {
        if try watchDirectory() { return true }
        let parent = Self.parent(of: directory)
        do {
            parentSource = try loop.addInotify(path: parent, mask: UInt32(IN_CREATE | IN_MOVED_TO)) { [unowned self] event in
                guard directorySource == nil, event.name == Self.basename(of: directory) else { return }
                do throws(HapticsError) {
                    if try watchDirectory() { onChange(.rescan) }
                } catch {
                    onChange(.watchFailed(error))
                }
            }
        } catch {
            throw .watchFailed(path: parent, call: error.call, errno: error.errno)
        }
        // It may have appeared between the two calls.
        return try watchDirectory()
    }

    /// Adds the directory's own source; false if the directory is missing.
    private func watchDirectory() throws(HapticsError) -> Bool {
        do {
            directorySource = try loop.addInotify(path: directory, mask: Self.directoryMask) { [unowned self] event in
                handle(event)
            }
        } catch {
            guard error.errno == ENOENT else { throw .watchFailed(path: directory, call: error.call, errno: error.errno) }
            return false
        }
        parentSource?.cancel()
        parentSource = nil
        return true
    }

    private func handle(_ event: InotifyEvent) {
        if event.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) {
            directorySource?.cancel()
            directorySource = nil
            do throws(HapticsError) {
                if try watch() { onChange(.rescan) }
            } catch {
                onChange(.watchFailed(error))
            }
            return
        }
        if let change = interpret(event) { onChange(change) }
    }

    /// What an event on the directory's own watch means.
    func interpret(_ event: InotifyEvent) -> Change? {
        guard Self.isEventNode(event.name) else { return nil }
        let path = directory + "/" + event.name
        if event.has(IN_DELETE | IN_MOVED_FROM) { return .removed(path) }
        if event.has(IN_CREATE | IN_ATTRIB | IN_MOVED_TO) { return .candidate(path) }
        return nil
    }

    /// The event nodes in the directory now (opendir/readdir), sorted.
    package func scan() -> [String] {
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
