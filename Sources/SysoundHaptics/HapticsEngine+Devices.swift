#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Discovery on the loop: the directory watch says what changed, a worker
/// opens the node (opening can block on a driver), the loop takes the device.
extension HapticsEngine {
    func changed(_ change: DirectoryWatcher.Change) {
        switch change {
        case .candidate(let path): consider(path)
        case .removed(let path): forget(path)
        case .rescan: for path in owned.watcher?.scan() ?? [] { consider(path) }
        case .watchFailed(let error): logger.error("\(error); haptic devices plugged in or removed from now on go unnoticed")
        }
        settle()
    }

    /// Opens `path` on a worker unless it is known or being opened.
    func consider(_ path: String) {
        let o = owned
        guard o.core.devices[path] == nil, !o.ignored.contains(path), !o.opening.contains(path) else { return }
        o.opening.insert(path)
        let opener = opener
        host.workers.submit({ () -> Result<any ForceFeedbackDevice, DeviceError> in
            do throws(DeviceError) { return .success(try opener(path)) } catch { return .failure(error) }
        }, then: { [weak self] result in
            guard let self else {
                if case .success(let device) = result { device.close() }
                return
            }
            opened(path, result)
        })
    }

    /// Takes a device a worker opened, if it qualifies and is still wanted.
    private func opened(_ path: String, _ result: Result<any ForceFeedbackDevice, DeviceError>) {
        let o = owned
        o.opening.remove(path)
        defer { settle() }
        switch result {
        case .success(let device):
            let verdict = verdict(for: device)
            if o.running { record(device, verdict) }
            guard o.running, verdict.used else {
                if o.running { o.ignored.insert(path) }
                host.workers.submit { device.close() }
                return
            }
            o.pending[path] = nil
            o.core.attach(device)
            preload(on: path)
            // It joins a running pattern at its next step, and a vibration
            // waiting for its uploads (one asked for while nodes were opening).
            o.core.want(o.core.upcoming(on: path), on: path)
            if let w = o.waiting { o.core.want(o.core.effects(of: w.rendition, on: path), on: path) }
            pump(path)
            resolveWaiting()
        case .failure(.permissionDenied), .failure(.gone):
            // Not ready yet: udev sets permissions after the node appears.
            guard o.running else { return }
            o.pending[path] = (o.pending[path] ?? Self.retries + 1) - 1
        case .failure(let error):
            logger.debug("cannot open input device", metadata: ["error": "\(error)"])
            o.ignored.insert(path)
        }
    }

    func forget(_ path: String) {
        let o = owned
        o.core.detach(path: path)
        o.uploadRetryTimers.removeValue(forKey: path)?.cancel()
        o.ignored.remove(path)
        o.pending[path] = nil
        if o.report.removeValue(forKey: path) != nil { o.reportChanged = true }
    }

    /// A repeating timer while nodes wait to be opened again.
    func armRetryTimer() {
        let o = owned
        if o.pending.isEmpty || !o.running {
            o.retryTimer?.cancel()
            o.retryTimer = nil
            return
        }
        guard o.retryTimer == nil else { return }
        do {
            o.retryTimer = try host.loop.addRepeatingTimer(every: Self.retryInterval, accuracy: .coarse(every: Self.retryInterval)) { [weak self] _ in self?.retry() }
        } catch {
            logger.error("haptic device retry timer: \(error)")
        }
    }

    private func retry() {
        let o = owned
        o.pending = o.pending.filter { $0.value > 0 }
        for path in o.pending.keys.sorted() {
            if access(path, F_OK) == 0 { consider(path) } else { forget(path) }
        }
        settle()
    }
}
