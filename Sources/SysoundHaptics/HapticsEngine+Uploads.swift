import SysoundPlatform

/// Uploads on the workers, their results back on the loop: the presets in
/// use as a device appears, a pattern's effects as it needs them.
extension HapticsEngine {
    /// Queues the preloaded presets' effects on the device at `path`, as many as it has slots.
    func preload(on path: String) {
        let o = owned
        guard let managed = o.core.devices[path] else { return }
        var effects: [RumbleEffect] = []
        for name in o.preload {
            guard let source = presets.withLock({ $0[name] }) else { continue }
            let rendition: Rendition
            do throws(HapticsError) { rendition = try self.rendition(source, intensity: 1, for: [managed.motor]) } catch {
                logger.warning("haptic preset not preloaded", metadata: ["preset": "\(name)", "path": "\(path)", "error": "\(error)"])
                continue
            }
            for effect in o.core.effects(of: rendition, on: path) where !effects.contains(effect) {
                effects.append(effect)
            }
        }
        o.core.want(Array(effects.prefix(managed.slots.capacity)), on: path, ahead: false)
        pump(path)
    }

    func preloadEverywhere() {
        for path in owned.core.devices.keys.sorted() { preload(on: path) }
    }

    /// Starts the device's next upload job on a worker, if one is due.
    func pump(_ path: String) {
        guard let job = owned.core.nextUpload(on: path) else { return }
        host.workers.submit({ job.run() }, then: { [weak self] result in self?.uploaded(result, on: path) })
    }

    private func uploaded(_ result: UploadJob.Result, on path: String) {
        let o = owned
        o.core.landed(result, on: path)
        if result.gone != nil, let tries = o.core.devices[path]?.goneUploads {
            // A node that just appeared may not take requests yet (uinput
            // answers ENODEV until UI_DEV_CREATE returns): try again shortly,
            // keeping the device, before dropping it as lost.
            if tries > Self.goneUploadRetries {
                o.core.dropAsLost(path)
            } else {
                retryUploads(on: path)
            }
        } else {
            pump(path)
        }
        settle()  // takes in a refusal first: the waiting request names it
        resolveWaiting()
        settle()
    }

    /// Pumps the device's uploads again in `goneUploadDelay` (one timer per device, re-armed).
    private func retryUploads(on path: String) {
        let deadline = EventLoop.monotonicNow() + Self.goneUploadDelay
        if let timer = owned.uploadRetryTimers[path] { return timer.schedule(at: deadline) }
        do {
            owned.uploadRetryTimers[path] = try host.loop.addTimer(at: deadline, accuracy: .millisecond) { [weak self] _ in self?.pump(path) }
        } catch {
            logger.error("haptic upload retry timer: \(error)")
        }
    }
}
