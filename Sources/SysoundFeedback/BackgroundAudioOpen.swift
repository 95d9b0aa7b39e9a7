import Logging
import SysoundAudio
import SysoundPlatform

/// Opens the daemon's audio device on its workers when there was none at
/// start (no sound server yet, or no device): tries again
/// after a pause growing from 250 ms to 2 s until a device opens, then hands
/// the engine to the manager on the loop and preloads the theme on a worker.
///
/// `alcOpenDevice` connects to the sound server and waits for it; a server
/// that accepted the connection and never answers holds it for as long. On
/// the loop that would stop every request, so the manager never opens a
/// device in a request (its `openAudio` says "not open yet"), and requests
/// meanwhile are answered at once.
final class BackgroundAudioOpen: @unchecked Sendable {
    // @unchecked: every field but the immutable ones is used on the loop thread only.
    private let host: LoopHost
    private let open: @Sendable () throws(AudioError) -> AudioEngine
    private let logger: Logger
    private weak var manager: FeedbackManager?
    private var retry: EventSource?
    private var pauseMicroseconds: UInt64 = firstPause
    private var attempts = 0

    static let firstPause: UInt64 = 250_000
    static let longestPause: UInt64 = 2_000_000

    init(manager: FeedbackManager, host: LoopHost, logger: Logger, open: @escaping @Sendable () throws(AudioError) -> AudioEngine) {
        self.manager = manager
        self.host = host
        self.logger = logger
        self.open = open
    }

    /// Starts the first attempt (any thread). The attempts keep this object
    /// alive until a device opens or the manager is gone.
    func start() {
        host.loop.post { [self] in attempt() }
    }

    private func attempt() {
        guard manager != nil else { return }
        attempts += 1
        host.workers.submit({ [open] () -> Result<AudioEngine, AudioError> in
            do throws(AudioError) { return .success(try open()) } catch { return .failure(error) }
        }, then: { [self] result in finished(result) })
    }

    /// A worker's attempt came back (loop thread).
    private func finished(_ result: Result<AudioEngine, AudioError>) {
        guard let manager else {
            if case .success(let engine) = result { engine.shutdown() }
            return
        }
        switch result {
        case .success(let engine):
            retry = nil
            guard manager.attachAudio(engine) else { engine.shutdown(); return }
            logger.info("audio output opened after \(attempts) attempts: sounds play from now on")
            host.workers.submitInBackground(logger: logger, { manager.preloadTheme() }, then: { _ in })
        case .failure(let error):
            // The first failure is in the log already (start-up); later ones only at debug.
            logger.debug("audio output still unavailable (attempt \(attempts)): \(error)")
            let deadline = host.loop.now + pauseMicroseconds
            pauseMicroseconds = min(pauseMicroseconds * 2, Self.longestPause)
            if let retry {
                retry.schedule(at: deadline)
            } else {
                do {
                    retry = try host.loop.addTimer(at: deadline, accuracy: .millisecond) { [self] _ in attempt() }
                } catch {
                    // Without the timer no later attempt comes: sounds stay silent until a reload or restart.
                    logger.error("audio output: no retry can be scheduled (\(error)); reload or restart sysound once a sound server runs")
                }
            }
        }
    }
}
