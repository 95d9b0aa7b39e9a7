import Logging
import SysoundBus
import SysoundServer
import SysoundState

/// Runs the D-Bus face beside the daemon's socket: on its own sd-event
/// thread until the daemon has one loop for everything (issue 13), then
/// attached to that loop instead. Control-file changes reach it from the
/// state watcher's thread by posting to its loop.
public final class FeedbackBusService: @unchecked Sendable {
    private let loop: LoopThread
    private let face: FeedbackFace

    /// Starts the face when `[dbus] enabled`; nil when disabled or when no
    /// loop could be made (logged; the socket is served either way).
    public static func start(manager: FeedbackManager, watcher: StateWatcher?, logger: Logger) -> FeedbackBusService? {
        guard manager.configuration.dbus.enabled else {
            logger.info("D-Bus face disabled ([dbus] enabled = false)")
            manager.setStatus("dbus", "disabled")
            return nil
        }
        do {
            let loop = try LoopThread()
            let service = FeedbackBusService(loop: loop, face: FeedbackFace(manager: manager, event: loop.event, logger: logger))
            watcher?.onChange { [weak service] _, _ in
                service?.loop.post { service?.face.stateChanged() }
            }
            loop.post { service.face.start() }
            loop.start(name: "sysound-dbus")
            return service
        } catch {
            logger.error("D-Bus face not started: \(error)")
            return nil
        }
    }

    private init(loop: LoopThread, face: FeedbackFace) {
        self.loop = loop
        self.face = face
    }

    /// Ends running feedback, leaves the bus and stops the loop's thread.
    public func stop() {
        loop.stop { [face] in face.stop() }
    }
}
