/// The events of feedbackd's default theme (data/default.json of feedbackd
/// 0.8, all three profiles): what its D-Bus clients ask for. A theme for the
/// D-Bus face should resolve each; `sysound check` reports those it cannot.
package enum FeedbackdEvents {
    package static let defaultTheme = [
        "alarm-clock-elapsed", "battery-caution", "bell-terminal", "button-pressed", "button-released",
        "camera-focus", "camera-shutter", "message-missed-email", "message-missed-instant",
        "message-missed-notification", "message-missed-sms", "message-new-cellbroadcast", "message-new-email",
        "message-new-instant", "message-new-sms", "message-sent-instant", "notification-missed-generic",
        "notification-new-generic", "phone-failure", "phone-hangup", "phone-incoming-call", "phone-missed-call",
        "phone-outgoing-busy", "screen-capture", "theme-demo", "timeout-completed", "window-close",
    ]

    /// One warning naming every event `theme` cannot resolve (XDG fallback included), or none.
    package static func unresolved(in theme: Theme, file: String) -> [Diagnostic] {
        // Whether it resolves is the question; why not is `sysound check`'s per-sound diagnostic.
        let missing = defaultTheme.filter { (try? theme.resolve($0)) == nil }
        guard !missing.isEmpty else { return [] }
        return [Diagnostic(
            .unknownReference, severity: .warning, file: file,
            message: "\(missing.count) of feedbackd's \(defaultTheme.count) events resolve to no sound: \(missing.joined(separator: ", ")); D-Bus clients asking for them get FeedbackEnded with reason not-found. Name them in [aliases], e.g. \(missing[0]) = \"notification\"")]
    }
}
