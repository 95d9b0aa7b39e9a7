import Foundation
@testable import Sysound
import SysoundAudio
import SysoundFeedback
import SysoundTestSupport
import XCTest

/// The library's async face against a real `sysound serve` and against the
/// embedded engine, with the sound recorded at the null sink: a `Playback`'s
/// `finished` completes once the sound has been heard to its end, not
/// before; a silenced sound says why and has finished at once; the one
/// connection the service keeps outlives a daemon restart.
final class LibraryAsyncTests: XCTestCase {
    /// The default theme's alarm, played once: about a second, long enough
    /// that the recorder's lag behind the sink cannot hide its start.
    let long = "alarm"
    let threshold: Float = 0.01

    func testFinishedCompletesAfterTheDaemonsSoundWasHeardToItsEnd() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        try await assertFinishedFollowsTheSound(SoundService(stateDirectory: daemon.stateDir, mode: .daemon))
    }

    func testFinishedCompletesAfterTheEmbeddedSoundWasHeardToItsEnd() async throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await assertFinishedFollowsTheSound(SoundService(stateDirectory: directory, mode: .embedded))
    }

    /// Plays the long sound and awaits its end, recording the sink meanwhile.
    func assertFinishedFollowsTheSound(_ sound: SoundService, file: StaticString = #filePath, line: UInt = #line) async throws {
        await sound.prepare()  // the embedded device opens here, not inside the measured span
        let recording = try MonitorRecording()
        let started = Date()
        let playback = try await sound.play(long, category: .playback)
        XCTAssertNotNil(playback.id, "\(playback.outcome)", file: file, line: line)
        XCTAssertFalse(playback.hasFinished, "a second-long sound has not finished as it starts", file: file, line: line)
        let length = try XCTUnwrap(playback.duration, "the reply gives the sound's length", file: file, line: line)
        await playback.finished
        let waited = Date().timeIntervalSince(started)
        let heardByThen = try recording.framesSoFar()
        XCTAssertTrue(playback.hasFinished, file: file, line: line)
        let samples = try recording.samples(atLeast: Double(heardByThen) / MonitorRecording.sampleRate + 0.5)
        let onset = try XCTUnwrap(Signal.onset(samples, threshold: threshold), "the sound never reached the sink", file: file, line: line)
        let end = try XCTUnwrap(samples.lastIndex(where: { abs($0) > threshold }))
        // The recorder lags the sink, so what it had delivered when `finished`
        // completed had certainly played by then: the sound's start must be in it.
        XCTAssertLessThan(onset, heardByThen, "finished completed before the sound reached the sink", file: file, line: line)
        XCTAssertGreaterThanOrEqual(waited, length, "finished completed before the sound's length had passed", file: file, line: line)
        let lateEnd = Double(end - heardByThen) / MonitorRecording.sampleRate
        print("finished after \(String(format: "%.3f", waited)) s for a \(length) s sound; the recording's end of it lies "
              + "\(String(format: "%.3f", lateEnd)) s past what the recorder had delivered by then")
        // What the recorder delivers lags the sink by its own latency: within
        // that, the sound's last sample must lie before `finished`.
        XCTAssertLessThan(lateEnd, 0.25, "finished completed long before the sound's end reached the sink", file: file, line: line)
    }

    func testASilencedSoundSaysWhyAndHasFinishedAtOnce() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let embeddedDirectory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: embeddedDirectory) }
        for sound in [SoundService(stateDirectory: daemon.stateDir, mode: .daemon),
                      SoundService(stateDirectory: embeddedDirectory, mode: .embedded)] {
            try await sound.setSilent(true)
            let tap = try await sound.play("tap")
            XCTAssertEqual(tap.outcome, .skip, "\(sound.mode)")
            XCTAssertEqual(tap.reason, .silent)
            XCTAssertNil(tap.id)
            XCTAssertTrue(tap.hasFinished)
            let before = Date()
            await tap.finished
            XCTAssertLessThan(Date().timeIntervalSince(before), 0.05, "a silenced sound waits for nothing")
            XCTAssertEqual(sound.settings.silent, true)
            try await sound.setSilent(false)
        }
    }

    /// The service keeps one connection; a daemon that restarted closed it,
    /// and the next request goes out on a new one, sent once, without an error.
    func testTheKeptConnectionSurvivesADaemonRestart() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let sound = SoundService(stateDirectory: daemon.stateDir, mode: .daemon)
        try await sound.setVolume(0.5)
        let before = daemon.pid
        XCTAssertEqual(daemon.terminate(), 0)
        try daemon.start()
        XCTAssertNotEqual(daemon.pid, before)
        try await sound.setVolume(0.75)
        XCTAssertEqual(sound.settings.volume, 0.75)
        let tap = try await sound.play("tap")
        XCTAssertNotNil(tap.id, "\(tap.outcome) \(tap.reason.map { "\($0)" } ?? "")")
        // While it is down the service says so, and once it is back it works again.
        XCTAssertEqual(daemon.terminate(), 0)
        do throws(SoundServiceError) {
            try await sound.setVolume(1)
            XCTFail("no daemon, and mode .daemon")
        } catch {
            XCTAssertEqual(error.kind, .noDaemon, "\(error)")
            XCTAssertTrue(error.message.contains("sysound serve"), error.message)
        }
        try daemon.start()
        try await sound.setVolume(1)
    }

    /// Stopping a looping sound completes its `finished`; from any task at once.
    func testStopEndsALoopAndItsFinished() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let sound = SoundService(stateDirectory: daemon.stateDir, mode: .daemon)
        let alarm = try await sound.play("alarm", category: .playback, loop: true)
        XCTAssertNotNil(alarm.id)
        async let ended: Void = alarm.finished
        // Several tasks use the one service at the same time.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await sound.play("tap", gain: 0.1) } }
            try await group.waitForAll()
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        XCTAssertFalse(alarm.hasFinished, "a loop plays on until stopped")
        // A task that stops waiting for it leaves it playing.
        let waiter = Task { await alarm.finished }
        waiter.cancel()
        await waiter.value
        XCTAssertFalse(alarm.hasFinished, "cancelling a wait is not stopping the sound")
        try await alarm.stop()
        let before = Date()
        await ended
        XCTAssertLessThan(Date().timeIntervalSince(before), 2)
        XCTAssertTrue(alarm.hasFinished)
    }

    /// The settings are typed both ways, and their changes arrive as an AsyncSequence.
    func testSettingsChangesArriveTyped() async throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sound = SoundService(stateDirectory: directory, mode: .embedded)
        var changes = try sound.stateChanges().makeAsyncIterator()
        let first = await changes.next()
        XCTAssertEqual(first, SoundSettings())
        try await sound.setHaptics(false)
        let next = await changes.next()
        XCTAssertEqual(next?.haptics, false)
        let vibration = try await sound.vibrate(.success)
        XCTAssertEqual(vibration.outcome, .skip)
        XCTAssertEqual(vibration.skipped, .policy(.hapticsOff))
    }

    /// `prepare()` opens what the next sound needs: the kept connection to
    /// the daemon; without one, the device and the theme's clips, which the
    /// engine's idle pause lets go again when nothing plays.
    func testPrepareWarmsWhatTheNextSoundNeedsAndLetsItGo() async throws {
        let daemon = try DaemonProcess()
        defer { daemon.stop() }
        let viaDaemon = SoundService(stateDirectory: daemon.stateDir, mode: .daemon)
        XCTAssertFalse(viaDaemon.link.isConnected)
        await viaDaemon.prepare()
        XCTAssertTrue(viaDaemon.link.isConnected, "the connection is open before the first sound")

        _ = try Pulse.require()
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let embedded = SoundService(stateDirectory: directory, mode: .embedded)
        await embedded.prepare()
        let manager = try XCTUnwrap(embedded.embedded.withLock { $0 }?.manager, "the engine was built")
        let audio = try XCTUnwrap(manager.audio, "the device was opened")
        // Closed here, not by the engine's deinit: an engine whose last
        // reference the audio loop drops crashes in deinit (it queues a
        // close that captures itself), which is the engine's to fix.
        defer { audio.shutdown() }
        XCTAssertTrue(Set(audio.clipNames).isSuperset(of: ["tap", "key", "alarm"]), "the theme's clips are decoded: \(audio.clipNames)")
        let deadline = Date().addingTimeInterval(5)
        while !audio.isOutputPaused, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertTrue(audio.isOutputPaused, "an output nobody plays on is let go (idle pause)")
        let tap = try await embedded.play("tap")
        XCTAssertNotNil(tap.id)
    }

    /// A loop that fell back to this process would outlive any `sysound
    /// stop`: refused, naming the way to a daemon; `.embedded` may still loop.
    func testWithoutADaemonALoopIsRefusedUnlessEmbeddedWasChosen() async throws {
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let automatic = SoundService(stateDirectory: directory)
        do throws(SoundServiceError) {
            try await automatic.play("alarm", loop: true)
            XCTFail("a loop without a daemon was not refused")
        } catch {
            XCTAssertEqual(error.kind, .needsDaemon)
            XCTAssertTrue(error.message.contains("systemctl --user start sysound"), error.message)
        }
        try await automatic.setVolume(0)  // silenced, so decided without an audio device
        let embedded = SoundService(stateDirectory: directory, mode: .embedded)
        let alarm = try await embedded.play("alarm", loop: true)
        XCTAssertEqual(alarm.reason, .volumeZero)
    }
}
