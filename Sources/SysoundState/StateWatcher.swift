#if canImport(Glibc)
import Glibc
#endif
import CSysoundShims
import Logging
import SysoundCore
import Synchronization
import SystemPackage

/// Keeps a `SystemState` equal to the control files of a state directory,
/// watching them with inotify (no polling): a write (close-write), an atomic
/// rename (moved-to), a removal, and the whole directory being removed and
/// recreated are all seen within milliseconds.
///
/// Garbage in a file is logged with the file's path and what was read; the
/// last good value stays. While the directory is gone the state stays as it
/// was and the parent is watched for its return.
public final class StateWatcher: Sendable {
    public typealias ChangeHandler = @Sendable (_ old: SystemState, _ new: SystemState) -> Void

    public let files: ControlFiles
    private let logger: Logger
    private let current: Locked<SystemState>
    private let handlers = Locked<[ChangeHandler]>([])
    private let inotify: FileDescriptor
    private let wake: FileDescriptor
    private let watches = Locked<(directory: Int32, parent: Int32)>((-1, -1))
    private let running = Atomic<Bool>(false)

    /// Reads the control files now and prepares the watches; call `start()` to follow changes.
    public init(directory: StateDirectory, logger: Logger = Logger(label: "sysound.state")) throws(StateWatcherError) {
        files = ControlFiles(directory: directory)
        self.logger = logger
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw .inotify(Errno(rawValue: errno)) }
        let wfd = sysound_eventfd()
        guard wfd >= 0 else { close(fd); throw .inotify(Errno(rawValue: errno)) }
        inotify = FileDescriptor(rawValue: fd)
        wake = FileDescriptor(rawValue: wfd)
        current = Locked(.defaults)
        let (state, problems) = files.loadAll()
        problems.forEach { logger.warning("\($0)") }
        current.withLock { $0 = state }
        addWatches()
    }

    deinit {
        try? inotify.close()
        try? wake.close()
    }

    /// The settings as of the last change seen.
    public var state: SystemState { current.withLock { $0 } }

    /// Calls `handler` on the watcher's thread after each change of the state.
    public func onChange(_ handler: @escaping ChangeHandler) {
        handlers.withLock { $0.append(handler) }
    }

    /// Starts following changes on a thread of its own.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        startThread(name: "sysound-state") { [self] in run() }
    }

    /// Stops following changes; returns at once.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wake.rawValue, &one, 8)
    }

    // MARK: - The loop

    private static let directoryMask = UInt32(
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
    private static let parentMask = UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

    private var directoryPath: String { files.directory.path }
    private var parentPath: String {
        let p = directoryPath
        guard let slash = p.lastIndex(of: "/"), slash != p.startIndex else { return "/" }
        return String(p[..<slash])
    }
    private var directoryName: String { String(directoryPath.split(separator: "/").last ?? "") }

    /// Watches the directory itself, and its parent so that a removed
    /// directory's return is noticed.
    private func addWatches() {
        watches.withLock { w in
            if w.parent < 0 {
                w.parent = inotify_add_watch(inotify.rawValue, parentPath, Self.parentMask)
                if w.parent < 0 { logger.warning("cannot watch \(parentPath) (\(Errno(rawValue: errno))); a recreated \(directoryPath) will not be noticed") }
            }
            if w.directory < 0 {
                w.directory = inotify_add_watch(inotify.rawValue, directoryPath, Self.directoryMask)
            }
        }
    }

    /// Watches a recreated directory. It is a new inode, so the old watch is
    /// dropped even when its IN_DELETE_SELF has not come yet: while anything
    /// holds the old directory open, the kernel reports the removal only when
    /// that is closed, and `addWatches` alone would keep the dead watch.
    private func rewatchDirectory() {
        watches.withLock { w in
            if w.directory >= 0 { inotify_rm_watch(inotify.rawValue, w.directory) }
            w.directory = -1
        }
        addWatches()
    }

    /// How long a removed control file waits before its default applies: long
    /// enough to see whether the whole directory is being removed (`rm -rf`),
    /// in which case the settings stay as they were.
    private static let removalGraceMs: Int32 = 30

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var fds = [pollfd(fd: inotify.rawValue, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wake.rawValue, events: Int16(POLLIN), revents: 0)]
        var removed: Set<ControlFile> = []
        while running.load(ordering: .acquiring) {
            let n = poll(&fds, 2, removed.isEmpty ? -1 : Self.removalGraceMs)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0, fds[1].revents == 0 else { break }
            if n == 0 {  // the grace period passed and the directory is still there
                reload(removed)
                removed = []
                continue
            }
            var events = Events()
            while true {
                let count = buffer.withUnsafeMutableBytes { read(inotify.rawValue, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                buffer.withUnsafeBytes { raw in
                    var offset = 0
                    while offset + MemoryLayout<inotify_event>.size <= count {
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let nameStart = offset + MemoryLayout<inotify_event>.size
                        let name = event.len > 0
                            ? String(decoding: raw[nameStart..<(nameStart + Int(event.len))].prefix { $0 != 0 }, as: UTF8.self)
                            : ""
                        offset = nameStart + Int(event.len)
                        handle(event, name: name, into: &events)
                    }
                }
            }
            removed.subtract(events.written)
            removed.formUnion(events.removed)
            if events.directoryGone { removed = [] }
            if events.directoryBack {
                rewatchDirectory()
                events.written.formUnion(ControlFile.allCases)
            }
            if !events.written.isEmpty { reload(events.written) }
        }
    }

    /// What one batch of inotify events says happened.
    private struct Events {
        var written: Set<ControlFile> = []
        var removed: Set<ControlFile> = []
        var directoryGone = false
        var directoryBack = false
    }

    /// Sorts one event into the batch's summary.
    private func handle(_ event: inotify_event, name: String, into events: inout Events) {
        let (directoryWatch, parentWatch) = watches.withLock { ($0.directory, $0.parent) }
        if event.wd == directoryWatch {
            if event.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                logger.warning("state directory \(directoryPath) was removed; keeping the current settings until it returns")
                watches.withLock { w in
                    if w.directory >= 0 { inotify_rm_watch(inotify.rawValue, w.directory) }
                    w.directory = -1
                }
                events.directoryGone = true
                return
            }
            guard let control = ControlFile(rawValue: name) else { return }
            if event.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                events.removed.insert(control)
                events.written.remove(control)
            } else {
                events.written.insert(control)
                events.removed.remove(control)
            }
        } else if event.wd == parentWatch && name == directoryName {
            logger.info("state directory \(directoryPath) is back; watching it again")
            events.directoryBack = true
        }
    }

    /// Re-reads control files now, without waiting for inotify: a writer in
    /// this process (the daemon answering `state set`) sees its own change at once.
    public func refresh(_ control: ControlFile) {
        reload([control])
    }

    /// Reads the files and updates the state in one step, so two reloads on
    /// different threads cannot lose each other's change.
    private func reload(_ controls: Set<ControlFile>) {
        let (old, new) = current.withLock { state -> (SystemState, SystemState) in
            let old = state
            for control in ControlFile.allCases where controls.contains(control) {
                do { try files.load(control, into: &state) } catch { logger.warning("\(error)") }
            }
            return (old, state)
        }
        guard new != old else { return }
        for handler in handlers.withLock({ $0 }) { handler(old, new) }
    }
}

/// The watcher could not be set up.
public enum StateWatcherError: Error, Equatable, Sendable, CustomStringConvertible {
    case inotify(Errno)

    public var description: String {
        switch self {
        case .inotify(let e): "cannot watch control files: inotify failed (\(e)); raise fs.inotify.max_user_instances"
        }
    }
}
