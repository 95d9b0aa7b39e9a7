
/// What `prepare()` has warmed already.
struct Warmth {
    /// The embedded engine's theme is decoded and uploaded.
    var themeLoaded = false
}

extension SoundService {
    /// Makes the next sound start as fast as it can: call it when a sound is
    /// about to be needed (a finger is down on a control, a countdown nears
    /// its end), as `UIFeedbackGenerator.prepare()` on iOS.
    ///
    /// With a daemon, the service's connection is opened now. With the
    /// embedded engine, its configuration and theme are loaded, the audio
    /// device is opened and every sound of the theme is decoded. Nothing is
    /// held for long: an output device nobody plays on pauses again after the
    /// configuration's `idle_pause_ms` (1 s by default), and the connection
    /// is the one the service keeps anyway.
    ///
    /// Warming is a hint: it never fails; a `play` that follows reports
    /// whatever went wrong.
    public func prepare() async {
        _ = try? await Self.offThePool { () throws(SoundServiceError) in self.prepareNow() }
    }

    /// Warms what the next sound needs, from a synchronous context.
    public func prepareNow() {
        if mode != .embedded {
            // No daemon answering is the case to warm for, not an error.
            if (try? link.send(.ping))?.isOK == true || mode == .daemon { return }
        }
        // A hint: what fails here fails again, and is reported, at the play.
        guard let engine = try? embeddedEngine(), engine.openAudio() else { return }
        let first = warmth.withLock { warm -> Bool in
            defer { warm.themeLoaded = true }
            return !warm.themeLoaded
        }
        if first { engine.preloadTheme() }
    }
}
