// The default theme, one recipe per sound. Pitches are equal-tempered notes so
// sounds that play together (a toggle, then a notification) stay consonant.
// Rising intervals mean "on / added / done", falling ones "off / removed / wrong".

/// How one shipped sound is made.
struct Recipe: Sendable {
    var name: String
    var lengthMs: Double
    /// Loopable sounds end in silence so the loop point is seamless.
    var loopable = false
    var build: @Sendable (inout Clip) -> Void

    func render() -> Clip {
        var clip = Clip(milliseconds: lengthMs)
        build(&clip)
        return clip
    }
}

/// Note frequencies used below (A4 = 440 Hz).
private enum Note {
    static let c5 = 523.25, d5 = 587.33, e5 = 659.26, fs5 = 739.99, g5 = 783.99
    static let a5 = 880.0, b5 = 987.77, c6 = 1046.50, ds5 = 622.25, e6 = 1318.51
    static let g6 = 1567.98, a6 = 1760.0, b6 = 1975.53, c7 = 2093.0, e7 = 2637.02
}

/// Partial sets: the timbres of the theme.
private enum Timbre {
    static let pure = [Partial(ratio: 1, level: 1)]
    static let warm = [
        Partial(ratio: 1, level: 1), Partial(ratio: 2, level: 0.3, decayScale: 1.5),
        Partial(ratio: 3, level: 0.1, decayScale: 2),
    ]
    /// A struck bar: strong fundamental, quickly dying inharmonic overtones.
    static let mallet = [
        Partial(ratio: 1, level: 1), Partial(ratio: 3.93, level: 0.25, decayScale: 3),
        Partial(ratio: 9.54, level: 0.05, decayScale: 6),
    ]
    static let wood = [
        Partial(ratio: 1, level: 1), Partial(ratio: 2.76, level: 0.35, decayScale: 2),
        Partial(ratio: 5.4, level: 0.1, decayScale: 3),
    ]
    static let bell = [
        Partial(ratio: 1, level: 1), Partial(ratio: 2, level: 0.6, decayScale: 1.2),
        Partial(ratio: 2.76, level: 0.4, decayScale: 1.6), Partial(ratio: 5.4, level: 0.25, decayScale: 2.5),
        Partial(ratio: 8.93, level: 0.1, decayScale: 3),
    ]
    /// Odd harmonics: a reedy, insistent timbre for warnings and errors.
    static let reed = [
        Partial(ratio: 1, level: 1), Partial(ratio: 3, level: 0.33, decayScale: 1.2),
        Partial(ratio: 5, level: 0.15, decayScale: 1.5), Partial(ratio: 7, level: 0.07, decayScale: 2),
    ]
    static let soft = [
        Partial(ratio: 1, level: 1), Partial(ratio: 3, level: 0.11, decayScale: 1.5),
        Partial(ratio: 5, level: 0.04, decayScale: 2),
    ]
}

enum Recipes {
    static let all: [Recipe] = [
        Recipe(name: "tap", lengthMs: 36) {
            $0.tone(atMs: 0, lengthMs: 36, hz: 1600, attackMs: 0.8, decayMs: 7, partials: Timbre.wood)
            $0.noise(atMs: 0, lengthMs: 12, centerHz: 4000, q: 1.5, level: 0.5, decayMs: 1.5, seed: 1)
        },
        Recipe(name: "click", lengthMs: 30) {
            $0.noise(atMs: 0, lengthMs: 30, centerHz: 3200, q: 2.5, level: 1, decayMs: 3, seed: 2)
            $0.tone(atMs: 0, lengthMs: 30, hz: 2400, level: 0.4, attackMs: 0.5, decayMs: 4)
        },
        Recipe(name: "key", lengthMs: 45) {
            $0.tone(atMs: 0, lengthMs: 45, hz: 1100, attackMs: 0.8, decayMs: 9, partials: Timbre.wood)
            $0.noise(atMs: 0, lengthMs: 15, centerHz: 2500, q: 1, level: 0.3, decayMs: 2, seed: 3)
        },
        Recipe(name: "key-delete", lengthMs: 55) {
            $0.tone(atMs: 0, lengthMs: 55, hz: 900, toHz: 640, attackMs: 0.8, decayMs: 12, partials: Timbre.wood)
            $0.noise(atMs: 0, lengthMs: 15, centerHz: 1800, q: 1, level: 0.3, decayMs: 2, seed: 4)
        },
        Recipe(name: "toggle-on", lengthMs: 100) {
            $0.tone(atMs: 0, lengthMs: 50, hz: Note.b5, attackMs: 1, decayMs: 14, partials: Timbre.warm)
            $0.tone(atMs: 45, lengthMs: 55, hz: Note.e6, attackMs: 1, decayMs: 16, partials: Timbre.warm)
        },
        Recipe(name: "toggle-off", lengthMs: 100) {
            $0.tone(atMs: 0, lengthMs: 50, hz: Note.e6, attackMs: 1, decayMs: 14, partials: Timbre.warm)
            $0.tone(atMs: 45, lengthMs: 55, hz: Note.b5, attackMs: 1, decayMs: 16, partials: Timbre.warm)
        },
        Recipe(name: "selection", lengthMs: 45) {
            $0.tone(atMs: 0, lengthMs: 45, hz: Note.c7, attackMs: 1, decayMs: 10, partials: Timbre.pure)
        },
        Recipe(name: "lock", lengthMs: 130) {
            $0.tone(atMs: 0, lengthMs: 60, hz: Note.d5, attackMs: 0.8, decayMs: 15, partials: Timbre.mallet)
            $0.noise(atMs: 0, lengthMs: 20, centerHz: 1500, q: 2, level: 0.4, decayMs: 3, seed: 5)
            $0.tone(atMs: 60, lengthMs: 70, hz: 440, attackMs: 0.8, decayMs: 18, partials: Timbre.mallet)
            $0.noise(atMs: 60, lengthMs: 20, centerHz: 1200, q: 2, level: 0.4, decayMs: 3, seed: 6)
        },
        Recipe(name: "unlock", lengthMs: 130) {
            $0.tone(atMs: 0, lengthMs: 60, hz: 440, attackMs: 0.8, decayMs: 15, partials: Timbre.mallet)
            $0.noise(atMs: 0, lengthMs: 20, centerHz: 1200, q: 2, level: 0.4, decayMs: 3, seed: 7)
            $0.tone(atMs: 60, lengthMs: 70, hz: Note.e5, attackMs: 0.8, decayMs: 18, partials: Timbre.mallet)
            $0.noise(atMs: 60, lengthMs: 20, centerHz: 1700, q: 2, level: 0.3, decayMs: 3, seed: 8)
        },
        Recipe(name: "notification", lengthMs: 300) {
            $0.fm(atMs: 0, lengthMs: 140, hz: Note.e6, ratio: 2, index: 1.2, attackMs: 3, decayMs: 60, indexDecayMs: 20)
            $0.fm(atMs: 110, lengthMs: 190, hz: Note.b6, ratio: 2, index: 1.2, attackMs: 3, decayMs: 70, indexDecayMs: 25)
        },
        Recipe(name: "message-sent", lengthMs: 200) {
            $0.tone(atMs: 0, lengthMs: 190, hz: 700, toHz: 2100, level: 0.8, attackMs: 25, decayMs: 90,
                    partials: Timbre.warm)
            $0.noise(atMs: 0, lengthMs: 190, centerHz: 3000, q: 0.8, level: 0.3, attackMs: 40, decayMs: 50, seed: 9)
        },
        Recipe(name: "success", lengthMs: 280) {
            $0.tone(atMs: 0, lengthMs: 80, hz: Note.c6, attackMs: 1, decayMs: 35, partials: Timbre.mallet)
            $0.tone(atMs: 70, lengthMs: 80, hz: Note.e6, attackMs: 1, decayMs: 35, partials: Timbre.mallet)
            $0.tone(atMs: 140, lengthMs: 140, hz: Note.g6, attackMs: 1, decayMs: 45, partials: Timbre.mallet)
        },
        Recipe(name: "warning", lengthMs: 260) {
            $0.tone(atMs: 0, lengthMs: 120, hz: Note.a5, attackMs: 4, decayMs: 45, partials: Timbre.reed)
            $0.tone(atMs: 130, lengthMs: 130, hz: Note.a5, attackMs: 4, decayMs: 45, partials: Timbre.reed)
        },
        Recipe(name: "error", lengthMs: 280) {
            $0.tone(atMs: 0, lengthMs: 130, hz: Note.ds5, attackMs: 4, decayMs: 50, partials: Timbre.reed)
            $0.tone(atMs: 120, lengthMs: 160, hz: 440, attackMs: 4, decayMs: 60, partials: Timbre.reed)
        },
        Recipe(name: "camera-shutter", lengthMs: 180) {
            $0.noise(atMs: 0, lengthMs: 60, centerHz: 2500, q: 0.7, level: 1, decayMs: 8, seed: 10)
            $0.tone(atMs: 0, lengthMs: 50, hz: 180, level: 0.4, attackMs: 1, decayMs: 10)
            $0.noise(atMs: 80, lengthMs: 100, centerHz: 3500, q: 0.9, level: 0.8, decayMs: 12, seed: 11)
        },
        Recipe(name: "screen-capture", lengthMs: 220) {
            $0.noise(atMs: 0, lengthMs: 60, centerHz: 3000, q: 0.7, level: 1, decayMs: 10, seed: 12)
            $0.tone(atMs: 30, lengthMs: 190, hz: Note.e7, level: 0.6, attackMs: 1, decayMs: 60, partials: Timbre.bell)
        },
        Recipe(name: "volume-change", lengthMs: 60) {
            $0.tone(atMs: 0, lengthMs: 60, hz: 1000, attackMs: 3, decayMs: 18, partials: Timbre.pure)
        },
        Recipe(name: "device-added", lengthMs: 200) {
            $0.tone(atMs: 0, lengthMs: 90, hz: Note.e5, attackMs: 2, decayMs: 35, partials: Timbre.warm)
            $0.tone(atMs: 80, lengthMs: 120, hz: Note.b5, attackMs: 2, decayMs: 45, partials: Timbre.warm)
        },
        Recipe(name: "device-removed", lengthMs: 200) {
            $0.tone(atMs: 0, lengthMs: 90, hz: Note.b5, attackMs: 2, decayMs: 35, partials: Timbre.warm)
            $0.tone(atMs: 80, lengthMs: 120, hz: Note.e5, attackMs: 2, decayMs: 45, partials: Timbre.warm)
        },
        Recipe(name: "battery-low", lengthMs: 300) {
            $0.tone(atMs: 0, lengthMs: 100, hz: Note.a5, attackMs: 3, decayMs: 40, partials: Timbre.soft)
            $0.tone(atMs: 95, lengthMs: 100, hz: Note.fs5, attackMs: 3, decayMs: 40, partials: Timbre.soft)
            $0.tone(atMs: 190, lengthMs: 110, hz: Note.d5, attackMs: 3, decayMs: 45, partials: Timbre.soft)
        },
        Recipe(name: "bell", lengthMs: 300) {
            $0.tone(atMs: 0, lengthMs: 300, hz: Note.a5, attackMs: 1, decayMs: 110, partials: Timbre.bell)
        },
        // Three beeps and a rest; the rest is silent, so the loop point is too.
        Recipe(name: "alarm", lengthMs: 1000, loopable: true) {
            for at: Double in [0, 150, 300] {
                $0.tone(atMs: at, lengthMs: 100, hz: Note.a6, attackMs: 5, decayMs: 200, partials: Timbre.warm)
            }
        },
        // A marimba phrase and a rest.
        Recipe(name: "ringtone", lengthMs: 2000, loopable: true) {
            let phrase: [(Double, Double)] = [
                (0, Note.e5), (140, Note.g5), (280, Note.c6), (420, Note.e6),
                (700, Note.c6), (840, Note.g5), (980, Note.c6),
            ]
            for (at, hz) in phrase {
                $0.tone(atMs: at, lengthMs: 320, hz: hz, attackMs: 1, decayMs: 90, partials: Timbre.mallet)
            }
        },
    ]
}
