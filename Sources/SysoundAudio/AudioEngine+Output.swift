import COpenAL
import FoundationEssentials
import Glibc
import Logging
import SysoundCore
import SysoundPlatform

/// An engine's output, as the engine sees it: taking an opened output and
/// giving it up, the monitor's check and what a reopen brings, the idle
/// pause's device calls, the render the engine runs itself, and what the
/// output can tell. The output's own behaviour is behind `AudioOutputDevice`
/// (AudioOutputDevice.swift); its life is `AudioCore.outputState`.

// MARK: - Attaching and detaching

/// Taking an opened output and giving it up: its sources and voice pool, and
/// the clips' buffers, which a new output gets from the clips' files.
extension AudioEngine {
    /// Takes a freshly opened output: sources, pool, and the clips' buffers
    /// (`buffers`, made beforehand off the lock by `uploadClips(into:)`; a
    /// clip it lacks — loaded meanwhile — is decoded again here, a clip whose
    /// upload failed there (buffer 0) stays unloaded, and leaves the cache).
    func attach(_ out: any AudioOutputDevice, buffers: [(Clip, ALuint)] = []) {
        out.makeCurrent()
        let wanted = max(1, min(settings.voices, out.maxSources > 0 ? out.maxSources : settings.voices))
        // The engine's render ticks with what it has rendered ("Rendering" below).
        core.attached(out, name: out.name, sources: AL.makeSources(wanted), engineRenders: out.whoMixes == .engine)
        // Keyed by identity while `buffers` keeps every clip alive.
        var made = Dictionary(uniqueKeysWithValues: buffers.map { (ObjectIdentifier($0.0), $0.1) })
        var lost: [Clip] = []
        for clip in core.store.allClips {
            if let buffer = made.removeValue(forKey: ObjectIdentifier(clip)) {
                clip.buffer = buffer
                if buffer == 0 { lost.append(clip) }
                continue
            }
            do { clip.buffer = try reupload(clip) } catch {
                logger.error("cannot upload \(clip.name) again: \(error)")
                clip.buffer = 0
                lost.append(clip)
            }
        }
        // An ad-hoc file that cannot be loaded again is decoded anew on its next use.
        core.store.dropCached(lost)
        // Clips dropped while their buffers were made.
        for buffer in made.values where buffer != 0 { AL.deleteBuffer(buffer) }
    }

    /// Makes a buffer in `out`'s context for every clip, decoding its file
    /// again, off the lock (`ALThreadContext`): a reopened device gets its
    /// clips without a long hold of the lock the render takes. `out` is not
    /// attached yet, so nothing else uses its context. A clip that cannot be
    /// loaded again gets buffer 0.
    func uploadClips(into out: any AudioOutputDevice) -> [(Clip, ALuint)] {
        locked { core.store.allClips }.map { clip in
            do {
                return (clip, try ALThreadContext.with(out.context) { () throws(AudioError) -> ALuint in try reupload(clip) })
            } catch {
                logger.error("cannot upload \(clip.name) again: \(error)")
                return (clip, 0)
            }
        }
    }

    /// Ends every voice of `out`, the attached output (lock held).
    func dropVoices(_ out: any AudioOutputDevice) {
        out.makeCurrent()
        for i in 0..<core.pool.count where core.pool[i].isActive { finish(slot: i) }
    }

    /// Ends every voice and deletes the sources and buffers, keeping what
    /// is needed to load the clips again; returns the output for the caller to `close()` after
    /// releasing the lock (closing waits for the sound server).
    func detach() -> (any AudioOutputDevice)? {
        guard let out = output else { return nil }
        dropVoices(out)
        for clip in core.store.forgetRetired() where clip.buffer != 0 {
            AL.deleteBuffer(clip.buffer)
            clip.buffer = 0
        }
        AL.deleteSources(core.sources)
        for buffer in core.releasedBuffers { AL.deleteBuffer(buffer) }
        core.releasedBuffers = []
        for clip in core.store.allClips where clip.buffer != 0 {
            AL.deleteBuffer(clip.buffer)
            clip.buffer = 0
        }
        out.releaseCurrent()
        core.detached()
        return out
    }
}

// MARK: - The monitor's check and reopen

/// The monitor's side in the engine: its check, and taking what a reopen
/// brings (loop thread, the lock taken briefly).
extension AudioEngine {
    /// The monitor's look (loop thread, takes the lock briefly).
    func monitorCheck(now: Double) -> MonitorStep {
        locked { () -> MonitorStep in
            let out: any AudioOutputDevice
            switch core.outputState {
            case .attached(let attached), .streamLost(let attached): out = attached
            case .none, .closing, .closed: return .nothing
            }
            // A voice ending in this very check needs no doorbell.
            core.monitorRung = true
            defer { core.monitorRung = false }
            // The server moved the own stream to another sink (PulseStream's moved callback).
            if let was = core.outputMoved(to: out.name) { logger.info("audio output now on \(out.name) (was \(was))") }
            // Waiting for the stream that replaces a lost one (`reopen`).
            if core.outputState.isStreamLost { return .nothing }
            // A pause or resume in flight keeps the device open: the loss is handled at a later check.
            if !out.isConnected && !core.idlePause.callInFlight {
                core.checkArmedAt = nil
                defer { lock.broadcast() }
                // The own stream's mix, sources and buffers need no server: they stay.
                if out.reconnection != nil {
                    logger.warning("audio output \(out.name) lost its sound server; voices dropped, connecting a new stream (the mix and its clips stay)")
                    dropVoices(out)
                    core.streamLost(out)
                    return .lost(gone: nil)
                }
                logger.warning("audio device \(out.name) disconnected; voices dropped, core.reopening")
                return .lost(gone: detach())
            }
            // Not while a worker pauses or resumes: the query would wait for its
            // backend lock. The own stream's is read when asked (`outputLatencyNanoseconds`).
            if !out.keepsTiming && core.idlePause == .running { core.latencyNs = out.latencyNanoseconds() }
            // Seen before tick: a short voice may end in this very tick.
            let played = core.takePlayed()
            // The engine's render ticks with what it renders; a device's own mixer is ticked here.
            if out.whoMixes == .device { tick(now: now) }
            settleRampsIfSilent()
            let idleDeadline = core.idleDeadline(now: now, played: played, canPause: out.canPause)
            core.checkArmedAt = nextCheck(out, now: now)
            return .running(next: core.checkArmedAt, idleDeadline: idleDeadline)
        }
    }

    /// When the check is next needed (lock held), nil for "on an event
    /// only" (`AudioCore.nextCheck`): what is left of each voice's buffer is
    /// read from its source.
    func nextCheck(_ out: any AudioOutputDevice, now: Double) -> Double? {
        core.nextCheck(now: now, deviceMixes: out.whoMixes == .device, refresh: out.refresh, lossWatch: lossWatch(out)) { [sources = core.sources] slot, clip in
            AL.secondsLeft(source: sources[slot], frames: clip.format.frames, rate: clip.format.sampleRate)
        }
    }

    /// How often ALC_CONNECTED is read while a voice with no foreseeable end
    /// holds `out` (seconds): only on OpenAL Soft's device without its
    /// disconnect event; nil where the loss is told (lock held).
    func lossWatch(_ out: any AudioOutputDevice) -> Double? {
        guard out.lossIsWatched else { return nil }
        return settings.lossWatchIntervalMilliseconds / 1000
    }

    /// OpenAL Soft's device says it is gone (ALC_CONNECTED), with no device
    /// call in flight: what the idle timer asks before it lets a lost device be.
    var outputGone: Bool {
        locked { output.map { !$0.isConnected && !core.idlePause.callInFlight } ?? false }
    }

    /// The own stream's output waiting for a new stream (lock held); nil
    /// in every other state.
    var lostStreamOutput: (any ReconnectingOutput)? {
        if case .streamLost(let out) = core.outputState { out.reconnection } else { nil }
    }

    /// Takes a device reopened after a loss (loop thread); false when the
    /// engine closed meanwhile (the caller closes `out`).
    func attachReopened(_ out: any AudioOutputDevice, now: Double, buffers: [(Clip, ALuint)]) -> Bool {
        out.start(for: self)
        var kept: (any AudioOutputDevice)?
        let attached = locked { () -> Bool in
            // The own stream's kept mix, when the server came back as none (`auto`).
            if core.outputState.isStreamLost { kept = detach() }
            guard case .none = core.outputState else { return false }
            attach(out, buffers: buffers)
            if out.whoMixes == .device { core.lastTick = now }
            core.reconnected(now: now)
            return true
        }
        if let kept, let host { host.workers.submit { [self] in closeAfterUploads(kept) } }
        if attached {
            out.prime()
            logger.info("audio output reopened: \(out.name)")
        }
        return attached
    }

    /// Plays the kept mix on `stream` instead of the own stream the
    /// server's loss ended (loop thread). Returns the lost stream, for the
    /// caller to close; nil when the engine closed or no longer waits for a
    /// stream (the caller closes `stream`).
    func replaceLostStream(with stream: PulseStream, now: Double) -> PulseStream? {
        guard let out = locked({ lostStreamOutput }) else { return nil }
        // Before it plays: nothing reaches the new stream until the swap.
        out.connect(stream, to: self)
        let lost = locked { () -> PulseStream? in
            guard case .streamLost(let kept) = core.outputState, kept === out else { return nil }
            core.reconnected(now: now)
            let lost = out.replaceStream(stream)
            core.openedDeviceName = out.name
            return lost
        }
        if lost != nil {
            stream.prime()
            logger.info("audio output reconnected: \(out.name) (the mix and its clips kept)")
        }
        return lost
    }
}

// MARK: - Rendering

extension AudioEngine {
    /// Frames rendered between two ticks of the loopback clock (voice ends,
    /// duck and hush ramps), the same cadence as the device monitor.
    var renderChunkFrames: Int {
        max(16, Int(Double(settings.sampleRate) * settings.monitorIntervalMilliseconds / 1000))
    }

    /// Renders the next `frames` frames of the mix from the loopback output
    /// (alcRenderSamplesSOFT): interleaved stereo float32 at `settings.sampleRate`.
    package func render(frames: Int) throws(AudioError) -> [Float] {
        var out = [Float](repeating: 0, count: max(frames, 0) * 2)
        try locked { () throws(AudioError) in
            guard let o = output?.mixForCaller else {
                throw .wrongOutput("render(frames:) needs an engine created with output: .loopback")
            }
            out.withUnsafeMutableBufferPointer { mix(o, into: $0.baseAddress!, frames: frames) }
        }
        // What the render released (a replaced clip's last voice ended), off the lock.
        deleteReleasedBuffers()
        return out
    }

    /// Mixes `frames` from the loopback output `o` in chunks of
    /// `renderChunkFrames`, ticking the render clock (voice ends, ramps)
    /// after each. The engine's lock held.
    private func mix(_ o: LoopbackOutput, into buf: UnsafeMutablePointer<Float>, frames: Int) {
        o.makeCurrent()
        let chunk = renderChunkFrames
        var done = 0
        while done < frames {
            let n = min(chunk, frames - done)
            o.render(into: buf + done * 2, frames: n)
            done += n
            core.renderedSeconds += Double(n) / Double(settings.sampleRate)
            tick(now: core.renderedSeconds)
        }
    }

    /// The render of an output whose own thread writes the engine's mix (the
    /// own stream's mainloop thread, under its lock; takes the engine's): the
    /// next `frames` of the mix from `mixer`. Returns whether a voice still
    /// plays, also told to `writing` under the lock (a play reads it there);
    /// when none does, the duck and hush ramps are set to where they are
    /// going (nothing is audible, and the render clock stops while the
    /// writer writes nothing), and the writer stops writing after this block.
    func renderForWriter(
        _ out: any AudioOutputDevice, from mixer: LoopbackOutput, into buf: UnsafeMutablePointer<Float>, frames: Int,
        writing: (Bool) -> Void
    ) -> Bool {
        locked {
            guard output === out else {
                buf.update(repeating: 0, count: frames * 2)
                return false
            }
            mix(mixer, into: buf, frames: frames)
            let more = core.pool.voices.contains(where: { $0.phase == .playing })
            writing(more)
            if !more { settleRampsIfSilent() }
            return more
        }
    }

    /// Whether any voice is still playing or paused.
    package var hasActiveVoices: Bool { locked { core.pool.voices.contains { $0.isActive } } }

    /// How many voices are playing or paused now (`voiceCount` is the pool's size).
    package var activeVoiceCount: Int { locked { core.pool.voices.reduce(0) { $0 + ($1.isActive ? 1 : 0) } } }

    /// Renders until every voice has ended (plus `tailSeconds` of silence),
    /// at most `maxSeconds`, and writes the mix to `path` through libsndfile
    /// (float WAV; FLAC for `.flac`). Returns the rendered samples.
    ///
    /// - Throws: `.wrongOutput` on a device engine; `.writeFailed` naming the
    ///   path; a looping voice stops at `maxSeconds`.
    @discardableResult
    package func renderToFile(_ path: String, maxSeconds: Double = 60, tailSeconds: Double = 0) throws(AudioError) -> [Float] {
        let rate = settings.sampleRate
        let chunk = renderChunkFrames
        let limit = Int(maxSeconds * Double(rate))
        var all: [Float] = []
        var frames = 0
        while frames < limit && hasActiveVoices {
            all += try render(frames: min(chunk, limit - frames))
            frames += min(chunk, limit - frames)
        }
        if hasActiveVoices { stopAll() }
        let tail = Int(tailSeconds * Double(rate))
        if tail > 0 { all += try render(frames: tail) }
        try SoundFileWriter.write(all, channels: 2, sampleRate: rate, to: path)
        return all
    }
}

// MARK: - The idle pause

/// Pausing the output device while nothing plays.
///
/// An open OpenAL Soft device mixes all the time, silence included, and its
/// PulseAudio stream keeps the server mixing too (docs/benchmarks.md, figure 8). After
/// `settings.idlePauseMilliseconds` with no voice, the monitor's one-shot
/// idle timer pauses the device on a worker (ALC_SOFT_pause_device: OpenAL
/// Soft ends its mixer thread and corks the stream); the next `play` starts
/// its voice and has a worker resume the device. Only device outputs pause:
/// OpenAL Soft refuses the extension on loopback devices, whose mixing runs
/// only when `render` asks anyway.
///
/// Neither device call is made under the lock or on the loop: a pause waits
/// for the server to cork the stream, and a resume waits for a pause in
/// flight. A play during a pause only marks its resume owed (`IdlePause`); the worker that
/// paused resumes the device once the pause has returned.
extension AudioEngine {
    /// Whether the output device is paused for idleness now.
    package var isOutputPaused: Bool { locked { core.idlePause.isPaused } }
    /// How many times the device was paused for idleness (each later resumed
    /// by a play, unless it is paused now).
    package var idlePauses: Int { locked { core.pauseCount } }

    /// The idle timer fired (loop thread): when nothing played since and no
    /// device call is in flight, marks the device paused and returns it for
    /// `pauseOnWorker`.
    func beginIdlePause(now: Double) -> (any AudioOutputDevice)? {
        locked { () -> (any AudioOutputDevice)? in
            guard let out = output, core.beginIdlePause(now: now, canPause: out.canPause && out.isConnected) else { return nil }
            return out
        }
    }

    /// Pauses the device (alcDevicePauseSOFT) on a worker, then resumes it at
    /// once if a play came meanwhile. The flags are cleared here, under the
    /// lock, not in a completion on the loop: `shutdown` waits for them, also
    /// after the loop has ended.
    func pauseOnWorker(_ out: any AudioOutputDevice) {
        // A play between the idle timer and this worker (a busy machine can
        // make that milliseconds) started its voice on the running device:
        // then there is nothing to pause, and pausing would cut that voice.
        let go = locked { () -> Bool in
            guard core.idlePause == .pausing(resumeOwed: false), output === out else {
                core.idlePause.pauseReturned()
                core.pauseCount -= 1  // counted when decided; it did not happen
                lock.broadcast()
                return false
            }
            return true
        }
        guard go else { return }
        out.pause()
        let (resume, lost) = locked { () -> (Bool, Bool) in
            let owed = core.idlePause == .pausing(resumeOwed: true) && output === out
            core.idlePause.pauseReturned()
            if owed { core.idlePause = .resuming }
            lock.broadcast()  // shutdown() waits for the pause to end
            // A loss told during the pause was let be (a device call was in
            // flight), and a paused device is not watched: look now.
            return (owed, !owed && output === out && !out.isConnected)
        }
        if resume { resumeOnWorker(out) }
        if lost { monitor?.outputFailed() }
    }

    /// Has a worker resume the device (after the lock is released).
    func resumeLater(_ out: any AudioOutputDevice) {
        guard let host else { return }
        host.workers.submit { [self] in resumeOnWorker(out) }
    }

    /// Resumes the device (alcDeviceResumeSOFT) off the lock; `idlePause` is
    /// `.resuming`. Then, on OpenAL Soft's device, has the monitor check: it finds a
    /// loss while paused (ALC_CONNECTED) and foresees the end of the voice
    /// that asked for the resume. The own stream's render tells that end.
    /// The new mixer goes real-time last: a slow rtkit holds up neither the
    /// monitor nor a pause or close waiting for the resume.
    func resumeOnWorker(_ out: any AudioOutputDevice) {
        let started = out.resume()
        locked {
            core.idlePause.resumeReturned()
            lock.broadcast()
        }
        if out.whoMixes == .device { monitor?.wake() }
        out.promoteResumed(started)
    }
}

// MARK: - What the output tells

/// What the engine can tell about its output, for the daemon's status, tests and the bench.
extension AudioEngine {
    /// The device actually opened (ALC_ALL_DEVICES_SPECIFIER), e.g. the PulseAudio
    /// sink's description, or the sink the own stream plays on now; "OpenAL
    /// Soft" for the loopback output. After a loss, the last one's.
    package var deviceName: String { guarded { output?.name ?? core.openedDeviceName } }
    /// Whether the engine plays through its own PulseAudio stream (`output =
    /// "pulse"`, or `"auto"` with a server) rather than OpenAL Soft's device.
    package var playsOnOwnStream: Bool { streamFacts != nil }
    /// The kernel id of the thread that mixes and writes the stream (libpulse's
    /// mainloop, "sysound-audio"), for making it real-time; nil without a stream.
    package var audioThreadID: Int32? { streamFacts?.threadID }
    /// What the stream has written since it opened, in bytes (stereo float32
    /// frames × 8); nil without a stream.
    package var streamBytesWritten: UInt64? { streamFacts?.bytesWritten }
    /// Plays that woke the stream's thread (its kicks) since it opened; nil without a stream.
    package var streamKicks: Int? { streamFacts?.kicks }
    /// Underflows of the stream while a sound was being written (gaps heard); nil without a stream.
    package var streamUnderflows: Int? { streamFacts?.underflows }
    /// The stream's buffer as the server granted it, in frames; nil without a stream.
    package var streamBuffer: (tlength: Int, minreq: Int, prebuf: Int)? {
        streamFacts?.granted.map { ($0.tlength, $0.minreq, $0.prebuf) }
    }
    /// The own stream's facts now, if the output has one.
    private var streamFacts: StreamFacts? { locked { output?.streamFacts } }
    /// Voices in the pool (the configured count, or fewer if the device gives fewer).
    package var voiceCount: Int { locked { core.pool.count } }
    /// Whether an output device is open (false between a device loss and its return).
    package var isConnected: Bool { locked { if case .attached(let out) = core.outputState { !out.hasToldLoss } else { false } } }
    /// How many times the device was reopened after a loss.
    package var reconnections: Int { locked { core.reopenCount } }
    /// How many times a clip was decoded again from its file to give a new
    /// device its buffer (a reopen of OpenAL Soft's device; never the own
    /// stream's reconnection, whose mix keeps them).
    package var clipReuploads: Int { reuploads.load(ordering: .relaxed) }
    /// How long a sound started now takes to reach the sound server's sink,
    /// in ns: the output latency OpenAL reports (ALC_SOFT_device_clock),
    /// read by the monitor on each check so that asking costs only the lock,
    /// or the own stream's last timing update (kept by the stream).
    /// 0 on loopback, without a device, or before the server sent timing.
    /// A paired haptic starts this much later, so that it is felt when the
    /// sound is heard.
    package var outputLatencyNanoseconds: UInt64 {
        guarded { output.map { $0.keepsTiming ? $0.latencyNanoseconds() : core.latencyNs } ?? 0 }
    }
    /// How long until what the output was given has been heard, in ns: a
    /// voice the engine has just told ended still plays for this long. On
    /// the own stream, what it wrote ahead and the sink's latency
    /// (`PlayoutClock`); on OpenAL Soft's device, its latency; 0 on loopback.
    package var untilHeardNanoseconds: UInt64 {
        locked { output.map { $0.keepsTiming ? $0.untilHeardNanoseconds() : core.latencyNs } ?? 0 }
    }
    /// The mixing rate and refresh (updates per second) the device granted.
    package var grantedFormat: (frequency: Int, refresh: Int) {
        locked { (output?.frequency ?? 0, output?.refresh ?? 0) }
    }
}
