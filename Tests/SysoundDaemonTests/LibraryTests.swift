import Foundation
import Logging
import Sysound
import SysoundAudio
import SysoundClient
import SysoundConfig
import SysoundCore
import SysoundPlatform
import SysoundHaptics
import SysoundFeedback
import SysoundDaemon
import SysoundState
import SysoundTesting
import XCTest

/// The `Sysound` library against a real daemon (in this process, on a temp
/// state directory), with the real feedback manager, an OpenAL loopback
/// device for audio and a fake rumble device for haptics.
final class LibraryTests: XCTestCase {
    var directory: StateDirectory!
    var daemon: Daemon!
    var manager: FeedbackManager!
    var watcher: StateWatcher!
    var rumble: FakeForceFeedbackDevice!
    let finished = DispatchSemaphore(value: 0)

    override func setUpWithError() throws {
        directory = StateDirectory(path: makeTemporaryDirectory())
        let logger = RunningDaemon.logger
        let (configuration, theme, _) = try ServiceSetup.load(configPath: nil)
        // As `sysound serve` builds it: the watcher's inotify sources on the daemon's loop.
        let loop = try EventLoop()
        let workers = try WorkerPool(size: Daemon.defaultWorkerCount, name: "test-worker", loop: loop)
        watcher = try StateWatcher(directory: directory, loop: loop, logger: logger)
        let haptics = try HapticsEngine(
            presets: configuration.haptics.presets, deviceDirectory: nil, host: LoopHost(loop: loop, workers: workers), logger: logger)
        rumble = FakeForceFeedbackDevice(path: "/dev/input/event-fake")
        XCTAssertTrue(haptics.attach(rumble))
        try haptics.start()
        let watcher = watcher!
        manager = try ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: directory, audio: .loopback,
            haptics: haptics, settings: .watched(watcher), logger: logger)
        var options = DaemonOptions(stateDirectory: directory.path)
        options.handleSignals = false
        daemon = try Daemon(
            options: options, handler: DaemonHandler(manager: manager, configPath: nil), loop: loop, workers: workers, logger: logger)
        let daemon = daemon!, finished = finished
        Thread.detachNewThread {
            daemon.run()
            finished.signal()
        }
        // The theme's effects go to the device on the workers first.
        XCTAssertTrue(eventually { !haptics.isUploading && self.rumble.effects.count > 0 }, "the theme's effects were uploaded")
    }

    override func tearDown() {
        daemon.stop()
        XCTAssertEqual(finished.wait(timeout: .now() + 5), .success)
        manager.haptics?.shutdown()
        manager.audio?.shutdown()
        try? FileManager.default.removeItem(atPath: directory.path)
    }

    var sound: SoundService { SoundService(stateDirectory: directory.path, mode: .daemon) }

    func eventually(_ seconds: Double = 2, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() && Date() < deadline { usleep(2_000) }
        return condition()
    }

    /// A force-feedback upload that blocks (a uinput device whose process
    /// answers late) holds up neither the sound nor any other request: the
    /// uploads run on a worker. The tap sounds at once and its haptic is
    /// skipped with a reason; a vibration alone is answered at the upload
    /// wait limit, as not vibrated; once the upload lands, the next tap vibrates.
    func testABlockingHapticUploadDelaysNoSoundAndNoRequest() throws {
        let slow = FakeForceFeedbackDevice(path: "/dev/input/event-slow")
        slow.blockUploads(seconds: 3)
        manager.haptics?.detach(path: rumble.path)
        XCTAssertEqual(manager.haptics?.attach(slow), true)  // the theme's effects go up now, blocked
        var replies: [Double] = []
        for request in [Request.play(PlayRequest(.name("tap")), wait: false), .ping, .stateGet(nil), .vibrate(VibrateRequest(.preset("heavy")))] {
            let start = Date()
            let reply = try DaemonClient(socketPath: daemon.socketPath).send(request)
            replies.append(Date().timeIntervalSince(start))
            if case .vibrate = request {
                guard case .error(.busy, let message) = reply else { XCTFail("\(request.text): \(reply)"); continue }
                XCTAssertTrue(message.hasPrefix("not vibrated"), message)
                continue
            }
            XCTAssertTrue(reply.isOK, "\(request.text): \(reply)")
            if case .play = request, case .ok(let fields, _) = reply {
                XCTAssertEqual(fields["outcome"], "play", "the sound plays; its haptic does not lag it")
                XCTAssertEqual(fields["haptic-skipped"], "uploading")
                XCTAssertNotNil(fields["id"], "the sound's voice started")
            }
        }
        XCTAssertTrue(manager.audio?.hasActiveVoices ?? false, "the tap sounds while the upload blocks")
        XCTAssertEqual(try sound.play("tap").hapticSkipped, .uploading, "typed in the library")
        // Well under the upload's 3 s, even on a loaded machine.
        XCTAssertLessThan(replies.max() ?? 0, 1.0, "replies took \(replies) s")
        XCTAssertEqual(plays(on: slow), 0, "the upload is still blocked")
        slow.blockUploads(seconds: 0)  // the driver answers: the uploads under way land
        XCTAssertTrue(eventually(10) {
            guard case .ok(let fields, _)? = try? DaemonClient(socketPath: self.daemon.socketPath).send(.play(PlayRequest(.name("tap")), wait: false))
            else { return false }
            return fields["outcome"] == "play-and-vibrate"
        }, "once the upload landed, the tap vibrates")
        XCTAssertTrue(eventually { self.plays(on: slow) > 0 })
    }

    /// The library's presets are the daemon's: every built-in one vibrates.
    func testEveryBuiltInPresetIsKnownToTheDaemon() throws {
        XCTAssertTrue(HapticPreset.builtIn.contains(HapticPreset(.alert)))
        XCTAssertEqual(Set(HapticPreset.builtIn.map(\.name)), Set(HapticPresets.names), "one list")
        for preset in HapticPreset.builtIn {
            XCTAssertNoThrow(try sound.vibrate(preset), preset.name)
        }
    }

    func plays(on device: FakeForceFeedbackDevice? = nil) -> Int {
        (device ?? rumble).records.filter { if case .play = $0.operation { true } else { false } }.count
    }

    /// Settings change on the loop thread, in the order requests arrive: two
    /// clients racing to set the volume leave the engine at the value the
    /// control file (and so `state get`) ends with.
    func testConcurrentVolumeSettersAgreeAtTheEnd() throws {
        let clients = 2, each = 150
        let path = directory.path
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: clients) { client in
            let service = SoundService(stateDirectory: path, mode: .daemon)
            for i in 0..<each {
                do {
                    try service.setVolume(Double((client * each + i) % 101) / 100)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let fields = try sound.perform(.stateGet(.volume))
        let stated = try XCTUnwrap(fields["volume"].flatMap(Double.init))
        // The watcher's echo of the last write may still be on its way: let the loop settle.
        usleep(100_000)
        XCTAssertEqual(try XCTUnwrap(manager.audio?.appliedVolume), stated, accuracy: 0.0001)
        XCTAssertEqual(manager.state.volume, stated, accuracy: 0.0001)
    }

    func testPlayVibrateAndStateThroughTheDaemon() throws {
        let sound = sound
        XCTAssertTrue(sound.isUsingDaemon)
        let tap = try sound.play("tap")
        XCTAssertEqual(tap.outcome, .playAndVibrate, "haptic skipped: \(tap.hapticSkipped?.rawValue ?? "-")")  // tap has a paired haptic
        XCTAssertNotNil(tap.id)
        XCTAssertTrue(manager.audio?.hasActiveVoices ?? false)

        let before = plays()
        try sound.vibrate(.success)
        XCTAssertTrue(eventually { self.plays() > before }, "the rumble device was not played")
        try sound.vibrate(try HapticPattern(parsing: "1:10,0:10,0.5:10"), intensity: 0.5)

        try sound.setSilent(true)
        XCTAssertTrue(sound.settings.silent)
        let silenced = try sound.play("tap")
        XCTAssertEqual(silenced.reason, .silent)
        XCTAssertNil(silenced.id)
        XCTAssertTrue(silenced.hasFinished, "a silenced sound has finished at once")
        let alert = try sound.play("notification")
        XCTAssertEqual(alert.outcome, .vibrateInstead)
        XCTAssertEqual(alert.haptic, HapticPreset(.alert))
    }

    func testErrorsArriveTypedWithTheirCode() throws {
        XCTAssertThrowsError(try sound.play("no-such-sound")) { error in
            XCTAssertEqual((error as? SoundServiceError)?.kind, .unknownSound)
        }
        XCTAssertThrowsError(try sound.vibrate("no-such-preset")) { error in
            XCTAssertEqual((error as? SoundServiceError)?.kind, .unknownPreset)
        }
        XCTAssertThrowsError(try sound.setVolume(2)) { error in
            XCTAssertEqual((error as? SoundServiceError)?.kind, .badValue)
            XCTAssertEqual("\(error)", "volume 2.0 is not between 0 and 1", "a message a person can act on")
        }
        XCTAssertThrowsError(try sound.play("tap", gain: 3)) { error in
            XCTAssertEqual((error as? SoundServiceError)?.kind, .badValue)
        }
    }

    func testStopAndInterruptions() throws {
        let sound = sound
        let alarm = try sound.play("alarm", loop: true)
        XCTAssertEqual(alarm.outcome, .playAndVibrate)
        try sound.beginInterruption()
        XCTAssertEqual(try sound.play("tap").reason, .interrupted)
        XCTAssertEqual(try sound.play("notification").outcome, .deferred)
        try sound.endInterruption(resumable: true)
        XCTAssertTrue(manager.audio?.hasActiveVoices ?? false)
        XCTAssertGreaterThan(Int(try sound.perform(.status)["playing"] ?? "") ?? 0, 0)
        try sound.stopAll()
        XCTAssertFalse(manager.audio?.hasActiveVoices ?? true)
        XCTAssertEqual(try sound.perform(.status)["playing"], "0")
    }

    func testStateChangesArriveAsAnAsyncSequence() async throws {
        let changes = try sound.stateChanges()
        var iterator = changes.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first?.volume, 1)
        try ControlFiles(directory: directory).write(.volume, "0.25")
        let next = await iterator.next()
        XCTAssertEqual(next?.volume, 0.25)
    }

    /// The embedded engine follows the settings like the daemon does: silent
    /// mode turned on by another process stops its ambient loop.
    func testTheEmbeddedEngineFollowsSettingsChangedElsewhere() throws {
        guard ProcessInfo.processInfo.environment["PULSE_SERVER"] != nil else {
            throw XCTSkip("needs an audio device: run under Tests/fixture/with-pulse.sh")
        }
        let other = StateDirectory(path: makeTemporaryDirectory())
        defer { try? FileManager.default.removeItem(atPath: other.path) }
        let embedded = SoundService(stateDirectory: other.path, mode: .embedded)
        XCTAssertNotNil(try embedded.play("ringtone", category: .ambient, loop: true).id)
        XCTAssertEqual(try embedded.perform(.status)["playing"], "1")
        try ControlFiles(directory: other).write(.silent, "1")
        let deadline = Date().addingTimeInterval(2)
        while try embedded.perform(.status)["playing"] != "0", Date() < deadline { usleep(5_000) }
        XCTAssertEqual(try embedded.perform(.status)["playing"], "0", "the ambient loop kept playing in silent mode")
        try embedded.stopAll()
    }

    func testWithoutADaemonTheLibraryFallsBackToTheEmbeddedEngine() throws {
        let other = StateDirectory(path: makeTemporaryDirectory())
        defer { try? FileManager.default.removeItem(atPath: other.path) }
        try ControlFiles(directory: other).write(.silent, "1")
        let embedded = SoundService(stateDirectory: other.path)
        XCTAssertFalse(embedded.isUsingDaemon)
        // Silenced: decided without opening any audio device.
        XCTAssertEqual(try embedded.play("tap").reason, .silent)
        XCTAssertThrowsError(try SoundService(stateDirectory: other.path, mode: .daemon).play("tap")) { error in
            XCTAssertEqual((error as? SoundServiceError)?.kind, .noDaemon, "\(error)")
        }
    }

    /// A loop that fell back to this process would outlive any `sysound
    /// stop`: refused, naming the way to a daemon; `.embedded` may still loop.
    func testWithoutADaemonALoopIsRefusedUnlessEmbeddedWasChosen() throws {
        let other = StateDirectory(path: makeTemporaryDirectory())
        defer { try? FileManager.default.removeItem(atPath: other.path) }
        let automatic = SoundService(stateDirectory: other.path)
        XCTAssertThrowsError(try automatic.play("alarm", loop: true)) { error in
            guard let error = error as? SoundServiceError, error.kind == .needsDaemon else { return XCTFail("\(error)") }
            let message = error.message
            XCTAssertTrue(message.contains("systemctl --user start sysound"), message)
            XCTAssertTrue(message.contains(other.socketPath), message)
        }
        XCTAssertThrowsError(try automatic.perform(.play(PlayRequest(.name("alarm"), loop: true), wait: false))) { error in
            XCTAssertEqual((error as? SoundServiceError)?.code.rawValue, "no-daemon", "\(error)")
        }
        // Silenced, so decided without an audio device: the loop was not refused.
        try ControlFiles(directory: other).write(.volume, "0")
        let embedded = SoundService(stateDirectory: other.path, mode: .embedded)
        XCTAssertEqual(try embedded.play("alarm", loop: true).reason, .volumeZero)
    }
}
