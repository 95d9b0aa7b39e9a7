/// One request of the socket protocol, as the daemon's handler receives it.
///
/// Text form: `Request(parsing:)` and `encoded()`; grammar in docs/protocol.md.
package enum Request: Sendable, Equatable {
    /// Play a sound. With `wait`, the reply comes when the sound has ended.
    case play(PlayRequest, wait: Bool = false)
    /// Vibrate a preset or an ad-hoc pattern.
    case vibrate(VibrateRequest)
    /// Stop one voice (by the id an `ok` reply to `play` carried) or all voices.
    case stop(StopTarget)
    /// Reply once the voice with this id (an `ok` reply's `id=`) has ended, or
    /// at once if it already has: what a client awaits a sound's end with
    /// after `play` answered at its start. Like `wait=1`, it holds its
    /// connection until then.
    case waitForEnd(String)
    /// Read the user's settings: one control file, or all with nil.
    case stateGet(ControlFile?)
    /// Change one of the user's settings (writes its control file).
    case stateSet(StateChange)
    /// An interruption (e.g. a phone call) starts.
    case interruptBegin
    /// The interruption ends; deferred and paused sounds resume only if `resumable`.
    case interruptEnd(resumable: Bool)
    /// List the theme's sounds or the haptic presets.
    case list(ListKind)
    /// Is the daemon alive? Replies `ok`.
    case ping
    /// The daemon's state: settings, devices, voices.
    case status

    /// The verb that starts the request's text form.
    package var verb: String {
        switch self {
        case .play: "play"
        case .vibrate: "vibrate"
        case .stop: "stop"
        case .waitForEnd: "wait"
        case .stateGet, .stateSet: "state"
        case .interruptBegin, .interruptEnd: "interrupt"
        case .list: "list"
        case .ping: "ping"
        case .status: "status"
        }
    }
}

/// A request to vibrate.
package struct VibrateRequest: Sendable, Equatable, Hashable {
    /// What to vibrate.
    package enum Source: Sendable, Equatable, Hashable {
        /// A named preset (`success`, `heavy`, or one from the config).
        case preset(String)
        /// An ad-hoc waveform.
        case pattern(HapticPattern)
        /// A designer's description (an AHAP file, a composition of
        /// primitives), rendered for the motor that plays it, with its sounds.
        case score(HapticScore)
    }

    package var source: Source
    /// Scales every step's magnitude, 0–1.
    package var intensity: Double

    /// Who asks: an app whose level is `silent` vibrates nothing (see `PlayRequest.app`).
    package var app: String?

    package static let intensityRange = 0.0...1.0

    package init(_ source: Source, intensity: Double = 1, app: String? = nil) {
        self.source = source
        self.intensity = intensity
        self.app = app
    }
}

/// What a `stop` request stops.
package enum StopTarget: Sendable, Equatable, Hashable {
    /// The voice with this id, as the daemon's `ok id=…` reply gave it.
    case voice(String)
    /// Every voice.
    case all
}

/// What a `list` request lists.
package enum ListKind: String, Sendable, Equatable, CaseIterable {
    case sounds
    case presets
}

/// A new value for one of the user's settings, already validated.
package struct StateChange: Sendable, Equatable, Hashable {
    /// The control files a client may set; `interrupted` changes only through
    /// `interrupt begin|end`, which also pause and resume voices.
    package static let settableFiles: [ControlFile] = [.silent, .locked, .volume, .haptics, .vibrateOnAlert]

    package let file: ControlFile
    /// The value as the control file holds it: `1`/`0`, or a volume such as `0.5`.
    package let content: String

    /// Parses `text` the way the control file itself is read (`on`, `50%`, …).
    ///
    /// - Throws: `ControlValueError` naming the text and what `file` accepts.
    package init(_ file: ControlFile, parsing text: String) throws(ControlValueError) {
        guard Self.settableFiles.contains(file) else {
            throw ControlValueError(found: ControlValue.quoted(file.rawValue), expected: Self.settableSpelling)
        }
        var state = SystemState.defaults
        try file.apply(text, to: &state)
        self.file = file
        self.content = file.content(of: state)
    }

    /// Stores the new value into `state`.
    package func apply(to state: inout SystemState) {
        // `content` was produced by `file.content(of:)`, so it always parses.
        // Cannot fail: `content` is `file.content(of:)`, which always parses.
        try? file.apply(content, to: &state)
    }

    static var settableSpelling: String {
        "one of " + settableFiles.map(\.rawValue).joined(separator: ", ")
    }
}
