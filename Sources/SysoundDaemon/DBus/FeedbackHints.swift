import SysoundPlatform
import SysoundCore

/// TriggerFeedback's hints, typed. Unknown hints and hints of the wrong type
/// are ignored and named in `ignored` (feedbackd ignores them too: a client
/// that works with feedbackd must work here).
struct FeedbackHints: Equatable {
    var profile: FeedbackProfile?
    var important = false
    var soundFile: String?
    /// `sound-file` of type `h`: the file itself, handed over open (as the
    /// notification portal takes sounds). The message's own fd: valid while it lives.
    var soundFD: Int32?
    var ignored: [String] = []

    init(_ hints: [String: BusValue]) {
        for key in hints.keys.sorted() {
            let value = hints[key]!
            switch key {
            case "profile":
                if let text = value.string, let profile = FeedbackProfile(rawValue: text) {
                    self.profile = profile
                } else {
                    ignored.append("profile=\(Self.show(value)) (expected a string: \(FeedbackProfile.names))")
                }
            case "important":
                if let flag = value.bool { important = flag } else { ignored.append("important=\(Self.show(value)) (expected a boolean)") }
            case "sound-file":
                if let path = value.string, !path.isEmpty {
                    soundFile = path
                } else if let fd = value.unixFD {
                    soundFD = fd
                } else {
                    ignored.append("sound-file=\(Self.show(value)) (expected a file path or a file descriptor)")
                }
            default:
                ignored.append("\(Self.show(key)) (unknown hint)")
            }
        }
    }

    /// A value for a log line, cut short: a hint can be 64 KiB.
    static func show(_ value: Any) -> String {
        let text = "\(value)"
        return text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}
