import Dispatch
import Foundation

extension AudioEngine {
    /// Starts the monitor thread: every `monitorIntervalMilliseconds` (or the
    /// idle interval when nothing plays, the paused interval once the device
    /// is paused for idleness) it notices ended voices, moves the duck/hush
    /// ramps, pauses an idle device, and checks ALC_CONNECTED; after a loss it
    /// reopens the default device with backoff.
    func startMonitor() {
        let done = DispatchSemaphore(value: 0)
        monitorDone = done
        lastTick = Self.monotonicSeconds()
        let busy = settings.monitorIntervalMilliseconds / 1000
        let idle = max(busy, settings.idleMonitorIntervalMilliseconds / 1000)
        let paused = max(idle, settings.pausedMonitorIntervalMilliseconds / 1000)
        lastBusy = lastTick
        let wake = monitorWake
        let thread = Thread { [weak self] in
            var backoff = 0.05
            var nextAttempt = 0.0
            var interval = busy
            while true {
                // A play that resumes a paused device signals `wake`: after the
                // long paused interval its voice's end and ramps would be
                // noticed late. (A semaphore's timeout is monotonic; the lock's
                // condition waits on the wall clock, which can jump.)
                _ = wake.wait(timeout: .now() + interval)
                guard let engine = self else { break }
                let now = Self.monotonicSeconds()
                var lost = false
                var toPause: ALOutput?
                let stop = engine.locked { () -> Bool in
                    if engine.closed { return true }
                    guard let out = engine.output else { lost = true; return false }
                    if out.isConnected {
                        // Seen before tick: a short voice may end in this very tick.
                        let played = engine.playedSinceCheck || engine.pool.voices.contains(where: \.isActive)
                        engine.playedSinceCheck = false
                        engine.tick(now: now)
                        let settled = engine.duckRamp.level == engine.duckRamp.target
                            && engine.hushRamp.level == engine.hushRamp.target
                        let quiet = settled && !engine.pool.voices.contains(where: \.isActive)
                        if quiet { toPause = engine.pauseIfIdle(now: now, busy: played) } else { engine.lastBusy = now }
                        interval = engine.outputPaused ? paused : quiet ? idle : busy
                    } else {
                        engine.logger.warning("audio device \(out.name) disconnected; voices dropped, reopening")
                        engine.detach()
                        ALLock.condition.broadcast()
                        lost = true
                        backoff = 0.05
                        nextAttempt = now
                    }
                    return false
                }
                if stop { break }
                if let out = toPause { engine.pause(out) }
                if lost && now >= nextAttempt {
                    if engine.reopen() {
                        backoff = 0.05
                    } else {
                        nextAttempt = now + backoff
                        backoff = min(backoff * 2, engine.settings.maxReopenBackoffMilliseconds / 1000)
                    }
                }
            }
            done.signal()
        }
        thread.name = "sysound-audio-monitor"
        monitorThread = thread
        thread.start()
    }

    /// Tries to open the default device again; on success re-uploads every
    /// clip from its kept PCM. Playback voices are not restarted (the
    /// "headphones unplugged" rule): they ended with the old device.
    func reopen() -> Bool {
        // alcOpenDevice may wait on the sound server: not under the lock.
        guard let out = try? ALOutput.openDefault(settings) else { return false }
        let attached = locked { () -> Bool in
            if closed { return false }
            attach(out)
            reopenCount += 1
            lastTick = Self.monotonicSeconds()
            lastBusy = lastTick
            return true
        }
        if attached {
            logger.info("audio output reopened: \(out.name)")
        } else {
            locked { out.close() }
        }
        return attached
    }

    static func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
