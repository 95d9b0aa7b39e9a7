/// Where an engine's output is in its life (guarded by the engine's lock):
/// one value, so that no two facts about the output can disagree (an output
/// kept after the engine closed, a lost stream with no output to replace).
/// A reopen on a worker (`AudioEngine.reopening`) can be under way in
/// `none` and in `streamLost`; it is the monitor's work, not the output's.
enum OutputState {
    /// None: not opened yet (the daemon opens one in the background when
    /// there was none at start), or the last one was lost and the monitor
    /// opens a new one.
    case none
    /// Plays on this output.
    case attached(any AudioOutputDevice)
    /// The own stream's server went away: the output stays (its mix, sources
    /// and buffers need no server) until a new stream replaces the lost one
    /// (`replaceLostStream`), or an output of another kind the whole output
    /// (`attachReopened`).
    case streamLost(any AudioOutputDevice)
    /// Shut down, the output kept until the device calls and uploads in
    /// flight have ended (`shutdown` waits for them, then detaches it).
    case closing(any AudioOutputDevice)
    /// Shut down: nothing is opened again; a reopen that ends now closes
    /// what it opened.
    case closed

    /// The output voices play on, or wait on: attached, waiting for its new
    /// stream, or closing.
    var output: (any AudioOutputDevice)? {
        switch self {
        case .attached(let out), .streamLost(let out), .closing(let out): out
        case .none, .closed: nil
        }
    }

    /// Shut down (closing or closed): no timer, check or reopen acts any more.
    var isClosed: Bool {
        switch self {
        case .closing, .closed: true
        case .none, .attached, .streamLost: false
        }
    }

    var isStreamLost: Bool {
        if case .streamLost = self { true } else { false }
    }
}
