import Logging
import SysoundPlatform
import SysoundFeedback
import SysoundState

/// The D-Bus face as one more source on the daemon's event loop: the bus is
/// attached to the loop (sd_bus_attach_event), so calls, name changes and
/// reconnection run on the loop thread, in order with socket requests and
/// control-file changes.
package final class FeedbackBusService: @unchecked Sendable {
    private let face: FeedbackFace

    /// Starts the face when `[dbus] enabled` (call on the loop thread, or
    /// before the loop runs) on `sessionBus`, a connection attached to
    /// the loop of `events` that other parts of the daemon may use too; nil when disabled.
    /// A missing session bus is logged and retried; the socket is served either way.
    /// `callers`: shared with the socket's `DaemonHandler`, so `status` lists both faces' sandboxed apps.
    package static func start(
        manager: FeedbackManager, events: FeedbackEvents, sessionBus: BusConnection, watcher: StateWatcher?, logger: Logger,
        callers: CallerApps? = nil
    ) -> FeedbackBusService? {
        guard manager.configuration.dbus.enabled else {
            logger.info("D-Bus face disabled ([dbus] enabled = false)")
            manager.setStatus("dbus", "disabled")
            return nil
        }
        // Events resolve through feedbackd's theme first (`events` loaded it); SIGHUP reloads it with the configuration.
        let service = FeedbackBusService(face: FeedbackFace(
            manager: manager, events: events, logger: logger, callers: callers ?? CallerApps(manager: manager, logger: logger)))
        // The watcher reports on the loop thread: the property follows the control files.
        watcher?.onChange { [weak service] _, _ in service?.face.stateChanged() }
        service.face.start(on: sessionBus)
        return service
    }

    private init(face: FeedbackFace) { self.face = face }

    /// Ends running feedback and leaves the bus (on the loop thread, or after the loop ended).
    package func stop() { face.stop() }
}
