import SysoundCore
import XCTest
@testable import SysoundAudio

/// The engine's decisions on its own state, without OpenAL or a sound
/// server: which voice a play takes, how the levels move over time, when
/// the idle pause is due, what a voice's end asks for, when the monitor's
/// check is next needed. The engine makes the device calls these decide
/// (the suites on PulseAudio and PipeWire prove those).
final class AudioCoreTests: XCTestCase {
    /// A core as an engine with an output of `voices` sources has it.
    func core(voices: Int = 4, _ change: (inout AudioSettings) -> Void = { _ in }) -> AudioCore {
        var settings = AudioSettings.defaults
        change(&settings)
        var core = AudioCore(settings: settings)
        core.pool = VoicePool(count: voices)
        core.outputState = .none
        return core
    }

    func clip(_ name: String = "tap", seconds: Double = 1, channels: Int = 2) -> Clip {
        Clip(name: name, gain: 1, format: ClipFormat(path: "/\(name).wav", sample: .float32, channels: channels, sampleRate: 48_000, frames: Int(seconds * 48_000)))
    }

    /// Plays as the engine does: a stolen voice is ended first.
    @discardableResult
    func play(
        _ core: inout AudioCore, _ clip: Clip, gain: Double = 1, rate: Double = 1, category: SoundCategory = .ambient,
        priority: Int = 0, duck: Bool = false, now: Double = 0
    ) -> (start: AudioCore.Start, stolen: VoiceID?) {
        let slot = core.slotForPlay()
        var stolen: VoiceID?
        if core.pool[slot].isActive {
            stolen = core.end(slot: slot, role: .event, now: now, monitored: true, engineMixes: true, duckHeld: false).voice
        }
        let start = core.start(slot: slot, clip: clip, gain: gain, rate: rate, category: category, priority: priority, duck: duck, role: .event)
        return (start, stolen)
    }

    func testAPlayTakesAFreeVoiceThenStealsTheLowestCategoryThenPriorityThenOldest() {
        var core = core(voices: 3)
        let c = clip()
        let alert = play(&core, c, category: .alert).start.id
        let oldTap = play(&core, c, category: .ambient, priority: 5).start.id
        let newTap = play(&core, c, category: .ambient, priority: 5).start.id
        XCTAssertEqual(Set([alert.slot, oldTap.slot, newTap.slot]).count, 3, "free voices first")
        // Full: of the two equal ambient voices the older goes.
        let (v4, stolen) = play(&core, c, category: .ambient, priority: 5)
        XCTAssertEqual(stolen, oldTap)
        XCTAssertEqual(v4.id.slot, oldTap.slot)
        XCTAssertFalse(core.pool.isCurrent(oldTap), "a stolen voice's ID is stale")
        // A lower entry priority goes before an older one of the same category.
        let low = play(&core, c, category: .ambient, priority: 1).start.id
        XCTAssertEqual(play(&core, c, category: .ambient, priority: 9).stolen, low)
        // The alert outranks every ambient voice: it is taken last.
        XCTAssertTrue(core.pool.isCurrent(alert))
    }

    func testAVoiceKeepsItsGainWithoutTheVolumeAndItsRateIsClamped() {
        var core = core()
        core.volume = 0.5
        let s = play(&core, clip(), gain: 0.4, rate: 5).start
        XCTAssertEqual(core.pool[s.id.slot].baseGain, 0.8, accuracy: 1e-6, "the volume is divided out")
        XCTAssertEqual(s.gain, 0.4, accuracy: 1e-6, "it starts at the policy's gain")
        XCTAssertEqual(s.pitch, 2, "rates above 2 play at 2")
        XCTAssertEqual(play(&core, clip(), rate: .nan).start.pitch, 1)
        XCTAssertEqual(play(&core, clip(), rate: 0.1).start.pitch, 0.5)
        XCTAssertTrue(core.playedSinceCheck, "the monitor sees the play")
        // A mono clip is made up for the panner's centre gain.
        let mono = play(&core, clip(channels: 1), gain: 0.4).start
        XCTAssertEqual(mono.gain, 0.4 / Clip.monoCentreGain, accuracy: 1e-5)
    }

    func testTheDuckRampsDownOverItsTimeWhileTheDuckingVoicePlaysAndBackAfter() {
        var core = core { $0.rampMilliseconds = 50; $0.duckDecibels = -12 }
        let duckGain = core.settings.duckGain
        let tap = play(&core, clip(), category: .ambient).start.id
        XCTAssertFalse(core.advanceRamps(to: 0.01, duckHeld: false), "nothing ducks: nothing moves")
        let call = play(&core, clip(), category: .alert, duck: true).start.id
        XCTAssertTrue(core.rampTargetsMove(duckHeld: false))
        // The duck's depth in ramp_ms: half of it after 25 ms.
        XCTAssertTrue(core.advanceRamps(to: 0.035, duckHeld: false))
        XCTAssertEqual(core.duckRamp.level, 1 - (1 - duckGain) / 2, accuracy: 1e-3)
        XCTAssertEqual(core.gain(of: tap.slot), core.duckRamp.level, accuracy: 1e-6, "the other voice is ducked")
        XCTAssertEqual(core.gain(of: call.slot), 1, "the ducking voice is not")
        _ = core.advanceRamps(to: 0.1, duckHeld: false)
        XCTAssertEqual(core.duckRamp.level, duckGain, accuracy: 1e-6, "down, and no further")
        _ = core.end(slot: call.slot, role: .event, now: 0.1, monitored: false, engineMixes: true, duckHeld: false)
        _ = core.advanceRamps(to: 0.125, duckHeld: false)
        XCTAssertEqual(core.duckRamp.level, 1 - (1 - duckGain) / 2, accuracy: 1e-3, "back up as it went down")
        _ = core.advanceRamps(to: 0.2, duckHeld: false)
        XCTAssertEqual(core.duckRamp.level, 1)
    }

    func testAnotherRolesDuckingVoiceHoldsTheseVoicesDown() {
        var core = core()
        play(&core, clip())
        XCTAssertTrue(core.rampTargetsMove(duckHeld: true))
        _ = core.advanceRamps(to: 1, duckHeld: true)
        XCTAssertEqual(core.duckRamp.level, core.settings.duckGain, accuracy: 1e-6)
    }

    func testASoloVoiceHushesAmbientVoicesOnlyAndSilenceSettlesTheLevels() {
        var core = core()
        let tap = play(&core, clip(), category: .ambient).start.id
        let alert = play(&core, clip(), category: .alert).start.id
        play(&core, clip(), category: .soloAmbient)
        _ = core.advanceRamps(to: 1, duckHeld: false)
        XCTAssertEqual(core.gain(of: tap.slot), 0, "ambient voices hush")
        XCTAssertEqual(core.gain(of: alert.slot), 1, "an alert does not")
        XCTAssertFalse(core.settleRampsIfSilent(), "voices play: the ramps keep their time")
        for slot in 0..<core.pool.count where core.pool[slot].isActive {
            _ = core.end(slot: slot, role: .event, now: 1, monitored: false, engineMixes: true, duckHeld: false)
        }
        core.hushRamp.target = 1
        XCTAssertTrue(core.settleRampsIfSilent(), "nothing plays: the levels go where they go at once")
        XCTAssertEqual(core.hushRamp.level, 1)
    }

    func testTheIdlePauseIsDueOnceTheEngineWasQuietForItsTime() {
        var core = core { $0.idlePauseMilliseconds = 1_000 }
        let c = clip()
        core.lastBusy = 10
        XCTAssertFalse(core.beginIdlePause(now: 10.5, canPause: true), "not before idle_pause_ms")
        // A voice that started and ended between two checks, its end not
        // rung (the check was under way): the idle time is past, but the
        // check has not seen that play yet.
        let quick = play(&core, c, now: 10.2).start.id
        core.monitorRung = true
        _ = core.end(slot: quick.slot, role: .event, now: 10.3, monitored: true, engineMixes: true, duckHeld: false)
        core.monitorRung = false
        XCTAssertFalse(core.beginIdlePause(now: 11.5, canPause: true), "a play the check has not seen keeps the output running")
        XCTAssertTrue(core.takePlayed())
        let v = play(&core, c, now: 10.5).start.id
        XCTAssertFalse(core.beginIdlePause(now: 12, canPause: true), "a voice plays")
        let ended = core.end(slot: v.slot, role: .event, now: 12, monitored: true, engineMixes: true, duckHeld: false)
        XCTAssertTrue(ended.ringMonitor, "the last voice's end rings the monitor")
        XCTAssertEqual(core.lastBusy, 12, "the end is the last activity")
        XCTAssertFalse(core.beginIdlePause(now: 12.5, canPause: true), "nothing played since the check yet: the check has to look first")
        // The check: it saw the play, and arms the pause from the end.
        let played = core.takePlayed()
        XCTAssertTrue(played)
        XCTAssertEqual(core.idleDeadline(now: 12.1, played: played, canPause: true), 13.1)
        XCTAssertFalse(core.beginIdlePause(now: 12.9, canPause: true))
        XCTAssertFalse(core.beginIdlePause(now: 13.2, canPause: false), "an output that cannot pause")
        XCTAssertTrue(core.beginIdlePause(now: 13.2, canPause: true))
        XCTAssertEqual(core.idlePause, .pausing(resumeOwed: false))
        XCTAssertEqual(core.pauseCount, 1)
        XCTAssertFalse(core.beginIdlePause(now: 14, canPause: true), "one pause at a time")
        XCTAssertNil(core.idleDeadline(now: 14, played: false, canPause: true), "paused: nothing to arm")
        core.idlePause.pauseReturned()
        XCTAssertEqual(core.idlePause, .paused)
    }

    func testAPlayEndsThePauseAndOnlyAPauseThatHasReturnedIsResumedAtOnce() {
        var core = core()
        XCTAssertFalse(core.playEndsIdlePause(kickResumes: false), "running: nothing to resume")
        core.idlePause = .paused
        XCTAssertTrue(core.playEndsIdlePause(kickResumes: false), "paused: a worker resumes it now")
        XCTAssertEqual(core.idlePause, .resuming)
        core.idlePause = .pausing(resumeOwed: false)
        XCTAssertFalse(core.playEndsIdlePause(kickResumes: false), "the pause in flight is undone by its own worker")
        XCTAssertEqual(core.idlePause, .pausing(resumeOwed: true))
        core.idlePause = .paused
        XCTAssertFalse(core.playEndsIdlePause(kickResumes: true), "the own stream's kick uncorks it")
        XCTAssertEqual(core.idlePause, .running)
    }

    func testAVoicesEndTellsItsObserversOnceAndRingsTheMonitorOnceUntilItsCheck() {
        var core = core()
        let a = play(&core, clip()).start.id
        let b = play(&core, clip()).start.id
        let told = Locked(0)
        XCTAssertTrue(core.observe(a) { told.withLock { $0 += 1 } })
        XCTAssertTrue(core.observe(a) { told.withLock { $0 += 1 } })
        let endA = core.end(slot: a.slot, role: .event, now: 1, monitored: true, engineMixes: true, duckHeld: false)
        XCTAssertEqual(endA.voice, a)
        endA.observers.forEach { $0() }
        XCTAssertEqual(told.withLock { $0 }, 2)
        XCTAssertFalse(endA.ringMonitor, "another voice plays: the engine is not quiet")
        XCTAssertTrue(core.endObservers.isEmpty)
        XCTAssertFalse(core.observe(a) {}, "an ended voice is told at once")
        core.monitorRung = true
        XCTAssertFalse(core.end(slot: b.slot, role: .event, now: 2, monitored: true, engineMixes: true, duckHeld: false).ringMonitor,
                       "the check runs already: no second ring")
    }

    func testOnOpenALSoftsDeviceAnEndThatMovesTheRampsRingsTheMonitor() {
        var core = core()
        play(&core, clip())
        let duck = play(&core, clip(), category: .alert, duck: true).start.id
        _ = core.advanceRamps(to: 1, duckHeld: false)
        XCTAssertTrue(core.end(slot: duck.slot, role: .event, now: 1, monitored: true, engineMixes: false, duckHeld: false).ringMonitor)
    }

    func testARetiredClipGoesWithItsLastVoice() {
        var core = core()
        let c = clip()
        let a = play(&core, c).start.id
        let b = play(&core, c).start.id
        core.store.retire(c)
        XCTAssertNil(core.end(slot: a.slot, role: .event, now: 0, monitored: false, engineMixes: true, duckHeld: false).retired, "a voice still plays it")
        XCTAssertTrue(core.end(slot: b.slot, role: .event, now: 0, monitored: false, engineMixes: true, duckHeld: false).retired === c)
        XCTAssertTrue(core.store.retired.isEmpty)
    }

    func testTheCheckIsNextDueAtTheEarliestForeseenEndOrTheRampsNextStep() {
        var core = core { $0.monitorIntervalMilliseconds = 5 }
        let long = play(&core, clip("long")).start.id
        let short = play(&core, clip("short")).start.id
        let left: (Int, Clip) -> Double? = { slot, _ in slot == short.slot ? 0.2 : 0.9 }
        let next = core.nextCheck(now: 10, deviceMixes: true, refresh: 50, lossWatch: nil, secondsLeft: left)
        XCTAssertEqual(next ?? 0, 10.22, accuracy: 1e-9, "the shorter voice's end, plus one mixer update")
        XCTAssertNil(core.nextCheck(now: 10, deviceMixes: false, refresh: 50, lossWatch: nil, secondsLeft: left),
                     "the own stream's render tells ends itself")
        // A loop has no end to foresee: only the loss watch, where OpenAL tells no loss.
        let loopOnly: (Int, Clip) -> Double? = { _, _ in nil }
        XCTAssertNil(core.nextCheck(now: 10, deviceMixes: true, refresh: 50, lossWatch: nil, secondsLeft: loopOnly))
        XCTAssertEqual(core.nextCheck(now: 10, deviceMixes: true, refresh: 50, lossWatch: 0.02, secondsLeft: loopOnly) ?? 0, 10.02, accuracy: 1e-9)
        core.duckRamp.target = 0.5
        XCTAssertEqual(core.nextCheck(now: 10, deviceMixes: true, refresh: 50, lossWatch: nil, secondsLeft: left) ?? 0, 10.005, accuracy: 1e-9,
                       "a moving ramp: the next step")
        core.idlePause = .paused
        XCTAssertNil(core.nextCheck(now: 10, deviceMixes: true, refresh: 50, lossWatch: nil, secondsLeft: left), "paused: nothing plays")
        _ = long
    }

    func testAPlayWakesTheMonitorOnlyWhenItsVoiceMayEndBeforeTheArmedCheck() {
        var core = core()
        play(&core, clip())
        XCTAssertTrue(core.playNeedsCheck(endingAt: 5, duckHeld: false), "nothing armed")
        XCTAssertEqual(core.checkArmedAt, 5)
        XCTAssertFalse(core.playNeedsCheck(endingAt: 7, duckHeld: false), "the armed check comes first")
        XCTAssertFalse(core.playNeedsCheck(endingAt: nil, duckHeld: false), "a loop without a loss watch")
        XCTAssertTrue(core.playNeedsCheck(endingAt: 3, duckHeld: false))
        XCTAssertEqual(core.checkArmedAt, 3)
        play(&core, clip(), category: .alert, duck: true)
        XCTAssertTrue(core.playNeedsCheck(endingAt: 9, duckHeld: false), "a ramp starts")
        XCTAssertEqual(core.checkArmedAt, 3, "the earlier check stays")
    }

    // The output's life. Its value holds an output: OpenAL Soft's loopback
    // device stands in (no sound server; the core makes no call on it).

    func testAReattachedOutputGetsANewPoolOnWhichOldVoiceIDsAreStale() throws {
        let out = try LoopbackOutput.open(.defaults)
        defer { out.close() }
        var core = core(voices: 0)
        core.attached(out, name: "first", sources: [1, 2], engineRenders: true)
        XCTAssertEqual(core.pool.count, 2)
        let old = play(&core, clip()).start.id
        core.duckRamp.level = 0.3
        core.idlePause = .paused
        core.detached()
        XCTAssertEqual(core.pool.count, 0)
        XCTAssertNil(core.outputState.output, "none: the monitor opens a new one")
        core.attached(out, name: "second", sources: [3, 4, 5], engineRenders: true)
        XCTAssertEqual(core.sources, [3, 4, 5])
        XCTAssertEqual(core.openedDeviceName, "second")
        XCTAssertFalse(core.pool.isCurrent(old), "an ID of the lost output names no new voice")
        let new = play(&core, clip()).start.id
        XCTAssertEqual(new.slot, old.slot)
        XCTAssertGreaterThan(new.serial, old.serial, "the start order goes on")
        XCTAssertEqual(core.duckRamp.level, 1, "levels at rest")
        XCTAssertEqual(core.idlePause, .running, "a new output is not paused")
        XCTAssertNil(core.outputMoved(to: "second"))
        XCTAssertEqual(core.outputMoved(to: "third"), "second", "a move names the sink it left")
        XCTAssertEqual(core.openedDeviceName, "third")
        XCTAssertTrue(core.beginClose())
        XCTAssertTrue(core.outputState.output === out, "closing keeps the output until it is detached")
        XCTAssertFalse(core.beginClose(), "a second close has nothing to do")
        XCTAssertTrue(core.pool.isCurrent(new))
        XCTAssertFalse(core.observe(new, {}), "a closing engine takes no observer")
        core.detached()
        guard case .closed = core.outputState else { return XCTFail("a closing engine's detach closes it: \(core.outputState)") }
        var bare = self.core()
        XCTAssertTrue(bare.beginClose())
        guard case .closed = bare.outputState else { return XCTFail("without an output a close is at once: \(bare.outputState)") }
    }

    func testALostStreamKeepsItsMixUntilANewStreamReplacesIt() throws {
        let out = try LoopbackOutput.open(.defaults)
        defer { out.close() }
        var core = core(voices: 0)
        core.attached(out, name: "sink", sources: [1, 2], engineRenders: true)
        core.renderedSeconds = 7
        core.latencyNs = 9_000
        core.idlePause = .pausing(resumeOwed: false)
        core.streamLost(out)
        XCTAssertTrue(core.outputState.isStreamLost)
        XCTAssertTrue(core.outputState.output === out, "the mix is kept")
        XCTAssertEqual(core.idlePause, .pausing(resumeOwed: true), "the pause in flight is undone when it returns")
        XCTAssertEqual(core.pool.count, 2, "the sources stay")
        core.reconnected(now: 12)
        guard case .attached(let kept) = core.outputState, kept === out else { return XCTFail("\(core.outputState)") }
        XCTAssertEqual(core.reopenCount, 1)
        XCTAssertEqual(core.latencyNs, 0, "the new stream's latency is not known yet")
        XCTAssertEqual(core.lastTick, 7, "the render clock goes on from where it was")
        XCTAssertEqual(core.lastBusy, 12)
    }
}
