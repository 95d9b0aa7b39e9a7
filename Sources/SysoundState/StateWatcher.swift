#if canImport(Glibc)
import Glibc
#endif
import Logging
import SysoundCore
import SysoundPlatform
import Synchronization
import SystemPackage

/// Keeps a `SystemState` equal to the control files of a state directory,
/// watching them with inotify on an event loop (no polling): a write
/// (close-write), an atomic rename (moved-to), a removal, and the whole
/// directory being removed and recreated are all seen within milliseconds.
///
/// In the daemon the watches are sources of its loop, so every change
/// handler runs on the loop thread, in order with the requests. The
/// embedded engine has no daemon loop: the watcher then runs a loop of its
/// own on one thread (`start()`).
///
/// Garbage in a file is logged with the file's path and what was read; the
/// last good value stays. While the directory is gone the state stays as it
/// was and the parent is watched for its return.
package final class StateWatcher: @unchecked Sendable {
    // @unchecked: `current` and `handlers` are locked; `watches` is touched
    // by the loop thread only (or before the loop runs).
    package typealias ChangeHandler = @Sendable (_ old: SystemState, _ new: SystemState) -> Void

    package let files: ControlFiles
    private let logger: Logger
    private let current: Locked<SystemState>
    private let handlers = Locked<[ChangeHandler]>([])
    private let directoryHandlers = Locked<[@Sendable () -> Void]>([])
    private let loop: EventLoop
    /// Whether `loop` is this watcher's own (embedded), run by `start()`.
    private let ownsLoop: Bool
    private let running = Atomic<Bool>(false)
    private let watches = Watches()

    /// The inotify sources; a class so that `deinit` can hand them to the
    /// loop thread, the only one that may cancel them.
    private final class Watches: @unchecked Sendable {
        var directory: EventSource?
        var parent: EventSource?
        /// Control files removed, applied after a grace period unless the whole directory goes.
        var removed: Set<ControlFile> = []
        var grace: EventSource?

        func cancelAll() {
            for source in [directory, parent, grace] { source?.cancel() }
            (directory, parent, grace) = (nil, nil, nil)
            removed = []
        }
    }

    /// Reads the control files now and watches them from `loop` (the
    /// daemon's), or from a loop of its own that `start()` runs on a thread.
    /// With a given loop, call this on its thread or before it runs.
    package init(directory: StateDirectory, loop: EventLoop? = nil, logger: Logger = Logger(label: "sysound.state")) throws(StateWatcherError) {
        files = ControlFiles(directory: directory)
        self.logger = logger
        do throws(EventLoopError) {
            self.loop = if let loop { loop } else { try EventLoop() }
        } catch {
            throw .inotify(Errno(rawValue: error.errno))
        }
        ownsLoop = loop == nil
        let (state, problems) = files.loadAll()
        problems.forEach { logger.warning("\($0)") }
        current = Locked(state)
        addWatches()
        if watches.directory == nil && watches.parent == nil {
            throw .inotify(Errno(rawValue: errno))
        }
    }

    deinit {
        // The sources belong to the loop thread; a watcher's own loop ends with it.
        let (watches, loop, ownsLoop) = (watches, loop, ownsLoop)
        loop.post {
            watches.cancelAll()
            if ownsLoop { loop.exit() }
        }
    }

    /// The settings as of the last change seen.
    package var state: SystemState { current.withLock { $0 } }

    /// Calls `handler` on the loop thread after each change of the state.
    package func onChange(_ handler: @escaping ChangeHandler) {
        handlers.withLock { $0.append(handler) }
    }

    /// Calls `handler` on the loop thread after any change in the state
    /// directory (a file created, written, renamed or removed; the directory
    /// removed or back): the daemon keeps its socket and lock files whole
    /// from here instead of a timer.
    package func onDirectoryChange(_ handler: @escaping @Sendable () -> Void) {
        directoryHandlers.withLock { $0.append(handler) }
    }

    private func directoryChanged() {
        for handler in directoryHandlers.withLock({ $0 }) { handler() }
    }

    /// Starts following changes: runs the watcher's own loop on a thread of
    /// its own (embedded). A watcher on the daemon's loop follows them as soon
    /// as that loop runs.
    package func start() {
        guard ownsLoop, !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        do {
            try loop.runOnThread(name: "sysound-state")
        } catch {
            logger.warning("cannot follow the control files: \(error)")
        }
    }

    /// Stops following changes; returns at once.
    package func stop() {
        let (watches, loop, ownsLoop) = (watches, loop, ownsLoop)
        loop.post {
            watches.cancelAll()
            if ownsLoop { loop.exit() }
        }
    }

    // MARK: - The watches

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
        if watches.parent == nil {
            do {
                watches.parent = try loop.addInotify(path: parentPath, mask: Self.parentMask) { [weak self] in self?.parentChanged($0) }
            } catch {
                logger.warning("cannot watch \(parentPath) (\(error)); a recreated \(directoryPath) will not be noticed")
            }
        }
        if watches.directory == nil {
            do {
                watches.directory = try loop.addInotify(path: directoryPath, mask: Self.directoryMask) { [weak self] in
                    self?.directoryChanged($0)
                }
            } catch {
                // Not there (yet): the parent's watch tells when it is.
                if error.errno != ENOENT { logger.warning("cannot watch \(directoryPath) (\(error)); changed settings apply only when it is watched again") }
            }
        }
    }

    /// How long a removed control file waits before its default applies: long
    /// enough to see whether the whole directory is being removed (`rm -rf`),
    /// in which case the settings stay as they were.
    private static let removalGraceUs: UInt64 = 30_000

    private func directoryChanged(_ event: InotifyEvent) {
        defer { directoryChanged() }
        if event.has(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) {
            guard watches.directory != nil else { return }
            logger.warning("state directory \(directoryPath) was removed; keeping the current settings until it returns")
            watches.directory?.cancel()
            watches.directory = nil
            watches.removed = []
            return
        }
        guard let control = ControlFile(rawValue: event.name) else { return }
        if event.has(IN_DELETE | IN_MOVED_FROM) {
            watches.removed.insert(control)
            if let grace = watches.grace {
                grace.schedule(at: loop.now + Self.removalGraceUs)
            } else {
                do {
                    watches.grace = try loop.addTimer(after: Self.removalGraceUs, accuracy: .millisecond) { [weak self] _ in
                        // The grace period passed and the directory is still there.
                        guard let self else { return }
                        let removed = watches.removed
                        watches.removed = []
                        reload(removed)
                    }
                } catch {
                    // No grace: the removed file's default applies now, as it would 30 ms later.
                    logger.warning("no grace timer for a removed control file (\(error)); its default applies at once")
                    let removed = watches.removed
                    watches.removed = []
                    reload(removed)
                }
            }
        } else {
            watches.removed.remove(control)
            reload([control])
        }
    }

    /// Watches a recreated directory. It is a new inode, so the old watch is
    /// dropped even when its IN_DELETE_SELF has not come yet: while anything
    /// holds the old directory open, the kernel reports the removal only when
    /// that is closed, and `addWatches` alone would keep the dead watch.
    private func parentChanged(_ event: InotifyEvent) {
        guard event.name == directoryName else { return }
        logger.info("state directory \(directoryPath) is back; watching it again")
        watches.directory?.cancel()
        watches.directory = nil
        watches.removed = []
        addWatches()
        reload(Set(ControlFile.allCases))
        directoryChanged()
    }

    /// Re-reads control files now, without waiting for inotify: a writer in
    /// this process (the daemon answering `state set`) sees its own change at once.
    package func refresh(_ control: ControlFile) {
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
package enum StateWatcherError: Error, Equatable, Sendable, CustomStringConvertible {
    case inotify(Errno)

    package var description: String {
        switch self {
        case .inotify(let e): "cannot watch control files: inotify failed (\(e)); raise fs.inotify.max_user_instances"
        }
    }
}
