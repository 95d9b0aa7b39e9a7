/// Where an engine's idle pause of its output stands (AudioEngine+Output.swift, "The idle pause"):
/// one value where three flags (paused, pausing, resuming) could be set in
/// mixes that mean nothing. Guarded by the engine's lock; the device calls
/// themselves (alcDevicePauseSOFT or the cork, alcDeviceResumeSOFT or the
/// uncork) run on a worker without it, and the worker moves the value on
/// when its call returns.
enum IdlePause: Equatable {
    /// The output mixes, or a play's kick uncorks it.
    case running
    /// A worker is inside the pause; `resumeOwed`: a play came meanwhile,
    /// so the worker resumes the output once the pause returns.
    case pausing(resumeOwed: Bool)
    /// Paused for idleness: the next play resumes it.
    case paused
    /// A worker is inside the resume.
    case resuming

    /// Paused, or being paused with no play since: nothing is mixed, and a
    /// play must end the pause.
    var isPaused: Bool { self == .paused || self == .pausing(resumeOwed: false) }

    /// A worker's pause or resume is in flight: the output stays open and
    /// its loss is looked at once the call has returned.
    var callInFlight: Bool {
        switch self {
        case .pausing, .resuming: return true
        case .running, .paused: return false
        }
    }

    /// A play (or a new output) ends the pause: a paused output runs; a
    /// pause in flight is undone by its worker once it returns.
    mutating func endPause() {
        switch self {
        case .paused: self = .running
        case .pausing: self = .pausing(resumeOwed: true)
        case .running, .resuming: break
        }
    }

    /// The worker's pause returned (or was not made): paused, unless a play
    /// came meanwhile.
    mutating func pauseReturned() {
        if case .pausing(let owed) = self { self = owed ? .running : .paused }
    }

    /// The worker's resume returned.
    mutating func resumeReturned() {
        if self == .resuming { self = .running }
    }
}
