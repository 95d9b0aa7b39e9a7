import SysoundCore
import SysoundState

extension SoundService {
    /// The user's settings now, read from the state directory.
    public var settings: SoundSettings {
        SoundSettings(ControlFiles(directory: stateDirectory).loadAll().state)
    }

    /// The user's settings each time they change, starting with the current
    /// ones. Whoever changes them (the desktop, `sysound silent on`, another
    /// app, this one) is followed: the state directory is watched (inotify),
    /// so nothing polls.
    ///
    /// ```swift
    /// for await settings in try sound.stateChanges() {
    ///     silentBadge.isHidden = !settings.silent
    /// }
    /// ```
    public func stateChanges() throws(SoundServiceError) -> AsyncStream<SoundSettings> {
        let watcher: StateWatcher
        do {
            try stateDirectory.prepare()
            watcher = try StateWatcher(directory: stateDirectory, logger: logger)
        } catch {
            throw SoundServiceError(.failed, "cannot follow the settings in \(stateDirectory.path): \(error)")
        }
        return AsyncStream { continuation in
            continuation.yield(SoundSettings(watcher.state))
            watcher.onChange { _, new in continuation.yield(SoundSettings(new)) }
            continuation.onTermination = { _ in watcher.stop() }
            watcher.start()
        }
    }

    /// Turns silent mode on or off: everything but `playback` is silenced,
    /// alerts vibrate instead; the sounds now playing that silent mode
    /// silences stop.
    public func setSilent(_ on: Bool) async throws(SoundServiceError) { try await set(.silent, on) }
    /// Turns silent mode on or off, from a synchronous context.
    public func setSilent(_ on: Bool) throws(SoundServiceError) { try set(.silent, on) }

    /// Says whether the screen is locked (a screen locker the daemon does not
    /// follow by itself reports it here): `ambient` sounds are silenced while locked.
    public func setLocked(_ on: Bool) async throws(SoundServiceError) { try await set(.locked, on) }
    /// Says whether the screen is locked, from a synchronous context.
    public func setLocked(_ on: Bool) throws(SoundServiceError) { try set(.locked, on) }

    /// Turns haptics on or off: when off, nothing vibrates.
    public func setHaptics(_ on: Bool) async throws(SoundServiceError) { try await set(.haptics, on) }
    /// Turns haptics on or off, from a synchronous context.
    public func setHaptics(_ on: Bool) throws(SoundServiceError) { try set(.haptics, on) }

    /// Makes alerts vibrate together with their sound even when not silent.
    public func setVibrateOnAlert(_ on: Bool) async throws(SoundServiceError) { try await set(.vibrateOnAlert, on) }
    /// Makes alerts vibrate with their sound, from a synchronous context.
    public func setVibrateOnAlert(_ on: Bool) throws(SoundServiceError) { try set(.vibrateOnAlert, on) }

    /// The flash for alerts (iOS's LED Flash for Alerts, Android's Flash
    /// notifications): alerts and the sounds the user asked for also flash
    /// the flash LED (the notification LED where there is none), always or
    /// only while silent mode is on.
    public func setFlashForAlerts(_ mode: FlashForAlerts) async throws(SoundServiceError) {
        try await Self.offThePool { () throws(SoundServiceError) in try self.setFlashForAlerts(mode) }
    }
    /// Sets the flash for alerts, from a synchronous context.
    public func setFlashForAlerts(_ mode: FlashForAlerts) throws(SoundServiceError) { try change(.flash, mode.rawValue) }

    /// Sets the system volume of sounds, 0–1 (0 mutes everything, playback included).
    /// - Throws: ``SoundServiceError/Kind/badValue`` outside 0–1.
    public func setVolume(_ volume: Double) async throws(SoundServiceError) {
        try await Self.offThePool { () throws(SoundServiceError) in try self.setVolume(volume) }
    }

    /// Sets the system volume, from a synchronous context.
    public func setVolume(_ volume: Double) throws(SoundServiceError) {
        guard volume.isFinite, (0...1).contains(volume) else {
            throw SoundServiceError(.badValue, "volume \(volume) is not between 0 and 1")
        }
        try change(.volume, ControlValue.format(volume: volume))
    }

    /// An interruption (e.g. a phone call) begins: ambient sounds stop,
    /// `playback` pauses, alerts wait for its end.
    public func beginInterruption() async throws(SoundServiceError) {
        try await Self.offThePool { () throws(SoundServiceError) in try self.beginInterruption() }
    }

    /// An interruption begins, from a synchronous context.
    public func beginInterruption() throws(SoundServiceError) { try perform(.interruptBegin) }

    /// The interruption ends; paused and deferred sounds resume only if `resumable`.
    public func endInterruption(resumable: Bool) async throws(SoundServiceError) {
        try await Self.offThePool { () throws(SoundServiceError) in try self.endInterruption(resumable: resumable) }
    }

    /// The interruption ends, from a synchronous context.
    public func endInterruption(resumable: Bool) throws(SoundServiceError) {
        try perform(.interruptEnd(resumable: resumable))
    }

    private func set(_ file: ControlFile, _ on: Bool) async throws(SoundServiceError) {
        try await Self.offThePool { () throws(SoundServiceError) in try self.set(file, on) }
    }

    private func set(_ file: ControlFile, _ on: Bool) throws(SoundServiceError) {
        try change(file, on ? "1" : "0")
    }

    /// Writes the setting through the daemon (which applies it at once) or the embedded engine.
    private func change(_ file: ControlFile, _ content: String) throws(SoundServiceError) {
        let change: StateChange
        do {
            change = try StateChange(file, parsing: content)
        } catch {
            throw SoundServiceError(.badValue, "\(file.rawValue): \(error)")
        }
        try perform(.stateSet(change))
    }
}
