import ArgumentParser
import Logging
import Sysound
import SysoundAudio
import SysoundCLIOptions
import SysoundProgramOutput
import SysoundPlatform
import SysoundClient
import SysoundConfig
import SysoundCore
import SysoundDaemon
import SysoundDesktop
import SysoundHaptics
import SysoundLeds
import SysoundFeedback
import SysoundState

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: EngineCommandText.serveAbstract, discussion: EngineCommandText.serveDiscussion)

    @OptionGroup var options: ServeOptions

    func run() throws {
        try Serve(ServeArguments(config: options.config, stateDirectory: options.stateDir, inputDirectory: options.inputDir)).run()
    }
}

/// The daemon: `serve` as the argument parser read it, or as `sysound` handed
/// it over in `ServeArguments`' shape (EngineCommand.main), without the parser.
struct Serve {
    let stateDir: String?
    let config: String?
    let inputDir: String

    init(_ arguments: ServeArguments) {
        stateDir = arguments.stateDirectory
        config = arguments.config
        inputDir = arguments.inputDirectory
    }

    func run() throws {
        // Before any thread starts (OpenAL's, PulseAudio's, the workers), so
        // that every thread inherits the mask and these signals reach only
        // the loop's signalfd.
        EventLoop.blockSignals([SIGTERM, SIGINT, SIGHUP])
        let logger = Logger(label: "sysound.daemon")
        let (configuration, theme, problems, configurationProblem): (SysoundConfiguration, Theme, [Diagnostic], ConfigurationError?)
        do {
            // The theme's files are not opened here: its load, after the
            // first requests, decodes each and logs every one that fails.
            (configuration, theme, problems, configurationProblem) = try ServiceSetup.loadForServing(configPath: config, checkingFiles: false)
        } catch {
            printError("sysound serve: \(error)")
            throw ExitCode(Exit.configuration)
        }
        if let configurationProblem {
            logger.critical("\(configurationProblem)\nserving with the built-in defaults until it is fixed; then reload (systemctl --user reload sysound, or kill -HUP)")
        }
        problems.forEach { logger.warning("\($0)") }
        let directory = StateDirectory.resolve(explicit: stateDir ?? configuration.stateDirectory)
        do {
            try directory.prepare()
        } catch {
            printError("sysound serve: \(error)")
            throw ExitCode(Exit.configuration)
        }
        // Refuse early, before opening devices, when a daemon already answers
        // here — unless systemd passed us this very socket, whose waiting
        // clients only we can answer.
        let activated = getenv("LISTEN_PID").map { String(cString: $0) } == String(getpid())
        if !activated, DaemonClient(socketPath: directory.socketPath, timeoutMilliseconds: 500).isDaemonRunning() {
            // Only to name the PID in the message.
            let pid = (try? ControlFiles.readSmallFile(directory.file("daemon.lock"))).flatMap { $0 }.map { " (PID \($0))" } ?? ""
            printError("sysound serve: another sysound daemon\(pid) already serves \(directory.socketPath); stop it first")
            throw ExitCode(Exit.busy)
        }

        // The environment OpenAL Soft and libpulse read, while this is the
        // process's only thread: the last point where it may be written.
        if !AudioProcess.prepare(configuration.audio) {
            logger.warning("threads started before the audio set-up; OpenAL Soft keeps its own mixing period")
        }
        // A media role's engine closed after its quiet time gives its memory
        // back, and no engine keeps OpenAL Soft's unused voices resident.
        AudioProcess.keepMemoryLean()
        // The own stream's mixer and stream (corked) start opening now, beside
        // the rest of the start; the output opens last (`openBeforeServing`).
        AudioProcess.openAhead(configuration.audio)
        // One loop serves every descriptor; blocking work goes to the workers.
        let loop: EventLoop, workers: WorkerPool, watcher: StateWatcher
        do {
            loop = try EventLoop()
            workers = try WorkerPool(size: Daemon.defaultWorkerCount, name: "sysound-worker", loop: loop)
            watcher = try StateWatcher(directory: directory, loop: loop, logger: Logger(label: "sysound.state"))
        } catch {
            printError("sysound serve: \(error)")
            throw ExitCode(Exit.software)
        }
        let haptics = ServiceSetup.haptics(
            configuration.haptics, logger: Logger(label: "sysound.haptics"), directory: inputDir,
            host: LoopHost(loop: loop, workers: workers))
        let leds = ServiceSetup.leds(configuration.leds, logger: Logger(label: "sysound.leds"), host: LoopHost(loop: loop, workers: workers))
        // The audio engine's timers join the daemon's loop; its device calls go to the workers.
        // Its audio threads go real-time directly, else through rtkit (a desktop's plain user).
        let realtime = RealtimeThreads(
            priority: Int32(configuration.audio.realtimePriority), broker: RealtimeKit(), logger: Logger(label: "sysound.audio"))
        // Its device opens last (`openBeforeServing`, below).
        // In that mode it opens nothing here, so it cannot fail.
        let manager = try! ServiceSetup.manager(
            configuration: configuration, theme: theme, stateDirectory: directory, audio: .deviceBeforeServing,
            haptics: haptics, leds: leds, settings: .watched(watcher), host: LoopHost(loop: loop, workers: workers),
            realtime: realtime, logger: logger)
        manager.configurationProblem = configurationProblem.map { "\($0)" }
        defer {
            leds?.shutdown()
            haptics?.shutdown()
            manager.shutdownAudio()
        }

        // The running feedbackd-theme events, started by D-Bus and the socket alike; ended when the daemon stops.
        let events = FeedbackEvents(manager: manager, loop: loop, logger: Logger(label: "sysound.events"))
        defer { events.endAll() }

        var options = DaemonOptions(stateDirectory: directory.path, allowedGroup: configuration.socketGroup)
        options.handleSignals = true
        // The socket and lock files are kept whole from the state directory's watch, not a timer.
        options.socketCheckIntervalMilliseconds = nil
        let daemon: Daemon
        // Which app id decides for a caller, and the sandboxed apps seen: one record for both faces.
        let callers = CallerApps(manager: manager, logger: logger)
        do {
            daemon = try Daemon(
                options: options, handler: DaemonHandler(manager: manager, events: events, configPath: config, callers: callers),
                loop: loop, workers: workers,
                logger: logger)
        } catch {
            printError("sysound serve: \(error)")
            throw ExitCode(Exit.busy)
        }
        watcher.onDirectoryChange { [weak daemon] in daemon?.checkFiles() }
        // One session-bus connection for the D-Bus face, the desktop's
        // switches and the screensaver lock source; opened by the first of
        // them that starts, closed last.
        let sessionBus = BusConnection(loop: loop, open: { () throws(BusError) in try Bus.open(.user) })
        defer { sessionBus.stop() }
        // What the policy decides with is read before the first request: the
        // control files (the watcher read them), the desktop's own switches
        // (GNOME, feedbackd's settings, Plasma) and the alert slider's position.
        let desktop = DesktopSources.start(
            manager: manager, loop: loop, sessionBus: sessionBus, watcher: watcher, logger: Logger(label: "sysound.desktop"))
        defer { desktop.stop() }
        let slider = AlertSlider.start(manager: manager, loop: loop, inputDirectory: inputDir, logger: Logger(label: "sysound.slider"))
        defer { slider.stop() }
        // The audio output, last: its mixer and stream have been opening
        // since the environment's set-up (`AudioProcess.openAhead`), beside
        // everything above. With none the daemon still serves (vibration,
        // settings) and opens one on its workers, trying until one opens.
        ServiceSetup.openBeforeServing(manager, host: LoopHost(loop: loop, workers: workers), realtime: realtime, logger: logger)
        // The rest waits until the requests that started the daemon (socket
        // activation: the first sound of a session) are answered: on two busy
        // cores each of them is time before that sound. The theme's load
        // (a play of a sound not loaded yet loads it itself,
        // FeedbackManager.clip(for:)); the D-Bus face, whose callers' requests
        // are answered once its name is taken; the screen lock's followers,
        // whose first answers come from the buses anyway, after the locked
        // file the watcher read.
        let faces = LaterFaces()
        defer { faces.stop() }
        let startLater = { [self] in
            workers.submitInBackground(logger: logger, { manager.preloadTheme() }, then: { report in
                if let report { logger.info("preloaded \(report.loaded.count) sounds, \(report.failures.count) failed") }
            })
            faces.sessionLock = followSessionLock(
                configuration.lockSources, manager: manager, files: ControlFiles(directory: directory), loop: loop, sessionBus: sessionBus)
            // The D-Bus face (feedbackd's interface): one more source on the loop.
            faces.bus = FeedbackBusService.start(
                manager: manager, events: events, sessionBus: sessionBus, watcher: watcher, logger: Logger(label: "sysound.dbus"),
                callers: callers)
        }
        do {
            try loop.addWhenIdle(startLater)
        } catch {
            logger.warning("cannot defer the theme's load and the D-Bus face past the first requests (\(error)); starting them now")
            startLater()
        }
        logger.info("serving \(daemon.socketPath) (audio: \(manager.audio?.deviceName ?? "none yet"), haptic devices: \(haptics?.devices.count ?? 0))")
        daemon.run()
        logger.info("stopped")
    }

    /// Follows the desktop's screen lock (logind, the screensavers) on the
    /// daemon's loop: a change is set through the manager exactly as a
    /// socket's `state set locked` (`sysound lock on|off`) sets it.
    func followSessionLock(
        _ sources: [LockSource], manager: FeedbackManager, files: ControlFiles, loop: EventLoop, sessionBus: BusConnection
    ) -> SessionLock? {
        let logger = Logger(label: "sysound.session")
        guard !sources.isEmpty else {
            logger.info("lock sources: none ([session] lock_sources = []); the locked file alone decides")
            return nil
        }
        let write = SessionLock.writer(files: files) { locked in
            if case .error(_, let message) = manager.handle(.stateSet(try StateChange(.locked, parsing: locked ? "1" : "0"))) {
                throw LockWriteRefused(message)
            }
        }
        // Made on the loop's thread (after the first requests).
        let lock = SessionLock(sources: sources, loop: loop, sessionBus: sessionBus, logger: logger, write: write)
        lock.start()
        return lock
    }
}

/// The faces `serve` starts after the first requests, on the loop thread;
/// stopped when the daemon has stopped, the D-Bus face before the lock
/// followers that share its session bus.
private final class LaterFaces {
    var bus: FeedbackBusService?
    var sessionLock: SessionLock?

    func stop() {
        bus?.stop()
        sessionLock?.stop()
    }
}

#if canImport(Glibc)
import Glibc
#endif
