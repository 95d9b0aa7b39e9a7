import Logging
import SysoundCore
import SysoundFeedback
import SysoundHaptics
import SysoundPlatform

/// The alert slider (OnePlus 6/6T; the iPhone's ring/silent switch): a
/// physical position the user can feel, which sysound follows as
/// feedbackd's fbd-alert-slider does. Its position at start and every move
/// set silent mode and haptics through the control files, as feedbackd's
/// profiles do (0 silent: silent on, haptics off; 1 quiet: silent on,
/// haptics on; 2 full: both back); a move gives a short confirming
/// vibration (not the start). The person can still override the settings
/// by hand: they hold until the next move. Found among the input nodes
/// (udev's `FEEDBACKD_TYPE=alert-slider`), hotplug included; its events are
/// read on the daemon's loop. Loop thread only.
package final class AlertSlider: @unchecked Sendable {
    // @unchecked: loop thread only.
    let manager: FeedbackManager
    let loop: EventLoop
    let logger: Logger
    let udevData: String
    private var watcher: DirectoryWatcher?
    private var device: AlertSliderDevice?
    private var source: EventSource?
    /// The position last acted on: a move is a change of it.
    private var position: Int32?

    /// The preset a move is confirmed with (feedbackd triggers `button-pressed`).
    static let confirmation = "medium"
    static let statusKey = "alert-slider"

    private init(manager: FeedbackManager, loop: EventLoop, udevData: String, logger: Logger) {
        self.manager = manager
        self.loop = loop
        self.udevData = udevData
        self.logger = logger
    }

    /// Looks for a slider among `inputDirectory`'s nodes now and whenever one
    /// appears (call on the loop's thread, or before the loop runs).
    package static func start(
        manager: FeedbackManager, loop: EventLoop, inputDirectory: String, udevData: String = EvdevDevice.udevDataDirectory,
        logger: Logger
    ) -> AlertSlider {
        let slider = AlertSlider(manager: manager, loop: loop, udevData: udevData, logger: logger)
        do {
            slider.watcher = try DirectoryWatcher(directory: inputDirectory, loop: loop) { [unowned slider] change in
                slider.changed(change)
            }
        } catch {
            logger.warning("alert slider: cannot watch \(inputDirectory) (\(error)); a slider plugged in later is not seen")
        }
        slider.scan()
        return slider
    }

    package func stop() {
        watcher?.cancel()
        watcher = nil
        release()
    }

    private func changed(_ change: DirectoryWatcher.Change) {
        switch change {
        case .candidate(let path): if device == nil { open(path) }
        case .removed(let path):
            if device?.path == path {
                logger.info("alert slider: \(path) went away; the settings stay as they are")
                release()
            }
        case .rescan: scan()
        case .watchFailed(let error):
            logger.error("alert slider: \(error); a slider plugged in or removed from now on goes unnoticed")
        }
    }

    private func scan() {
        for path in watcher?.scan() ?? [] where device == nil { open(path) }
        if device == nil { manager.setStatus(Self.statusKey, nil) }
    }

    private func open(_ path: String) {
        let device: AlertSliderDevice
        do throws(AlertSliderDevice.Refusal) {
            device = try AlertSliderDevice.open(path: path, udevData: udevData)
        } catch {
            if case .failed = error { logger.warning("alert slider: \(error)") }
            return
        }
        do {
            source = try loop.addIO(fd: device.fd, events: .readable) { [unowned self] _ in readable() }
        } catch {
            logger.error("alert slider: \(path) cannot be followed (\(error)); its moves are not seen")
            return
        }
        self.device = device
        logger.info("alert slider: \(path), position \(device.position)")
        // As feedbackd: the start sets the settings, without a buzz.
        apply(device.position, confirm: false)
    }

    private func readable() {
        guard let device else { return }
        guard device.drain() else {
            logger.warning("alert slider: \(device.path) cannot be read any more; no longer followed")
            return release()
        }
        if device.position != position { apply(device.position, confirm: true) }
    }

    private func release() {
        source?.cancel()
        source = nil
        device = nil
        position = nil
        manager.setStatus(Self.statusKey, nil)
    }

    /// Sets silent mode and haptics as the profile of `value` says.
    private func apply(_ value: Int32, confirm: Bool) {
        position = value
        guard let device else { return }
        guard let profile = Self.profile(at: value) else {
            logger.warning("alert slider: position \(value) of \(device.path) is none of 0 (silent), 1 (quiet), 2 (full); settings unchanged")
            manager.setStatus(Self.statusKey, "\(AlertSliderDevice.name) at \(device.path): position \(value), unknown")
            return
        }
        let (silent, haptics) = profile.settings
        for (file, on) in [(ControlFile.silent, silent), (.haptics, haptics)] {
            do {
                let change = try StateChange(file, parsing: on ? "1" : "0")
                if case .error(_, let message) = manager.handle(.stateSet(change)) {
                    logger.error("alert slider: cannot set \(file.rawValue): \(message)")
                }
            } catch {
                logger.error("alert slider: \(file.rawValue): \(error)")
            }
        }
        logger.info("alert slider: \(profile) (silent \(silent ? "on" : "off"), haptics \(haptics ? "on" : "off"))")
        manager.setStatus(Self.statusKey, "\(AlertSliderDevice.name) at \(device.path): \(profile) (silent \(silent ? "on" : "off"), haptics \(haptics ? "on" : "off"))")
        guard confirm, let engine = manager.haptics, !engine.devices.isEmpty else { return }
        // Felt in every position, silent too: the switch took (as the iPhone's buzzes).
        do throws(HapticsError) {
            try engine.vibrate(preset: Self.confirmation, priority: FeedbackManager.eventHapticPriority)
        } catch {
            logger.info("alert slider: no confirming vibration: \(error)")
        }
    }

    /// feedbackd's positions: 0 silent, 1 quiet, 2 full.
    static func profile(at position: Int32) -> FeedbackProfile? {
        switch position {
        case 0: .silent
        case 1: .quiet
        case 2: .full
        default: nil
        }
    }
}
