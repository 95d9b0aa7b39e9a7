import SysoundCore

/// One slot of the pool: what plays on the source with the same index.
struct Voice {
    enum Phase: Equatable { case idle, playing, paused }
    var phase: Phase = .idle
    var category: SoundCategory = .ambient
    var priority: Int = 0
    /// Start order, the smallest is the oldest; also the voice's ID serial.
    var order: UInt64 = 0
    /// The gain without the system volume, so a volume change can be applied.
    var baseGain: Float = 0
    var duck = false
    var clip: Clip?

    var isActive: Bool { phase != .idle }
}

/// The voice pool's bookkeeping without any OpenAL call, so the stealing and
/// level rules are plain logic: a fixed array sized once, never grown on the
/// play path.
struct VoicePool {
    private(set) var voices: [Voice]
    /// The next start order; carried over when the pool is rebuilt after a
    /// device loss so an old VoiceID never names a new voice.
    private(set) var nextOrder: UInt64
    /// Ducking voices of other media roles' engines (AudioEngine+Roles.swift):
    /// these voices duck while any plays. Carried over with `nextOrder`,
    /// since those voices play on whatever happens to this pool.
    var heldDucks: Int

    init(count: Int, nextOrder: UInt64 = 1, heldDucks: Int = 0) {
        voices = [Voice](repeating: Voice(), count: count)
        self.nextOrder = nextOrder
        self.heldDucks = heldDucks
    }

    var count: Int { voices.count }

    subscript(slot: Int) -> Voice {
        get { voices[slot] }
        set { voices[slot] = newValue }
    }

    /// The slot a new voice takes: a free one, else the victim with the lowest
    /// category rank (SoundCategory.voicePriority), then the lowest entry
    /// priority, then the oldest.
    func chooseSlot() -> Int {
        var best = -1
        for i in voices.indices {
            let v = voices[i]
            if !v.isActive { return i }
            if best < 0 { best = i; continue }
            let b = voices[best]
            let key = (v.category.voicePriority, v.priority, v.order)
            if key < (b.category.voicePriority, b.priority, b.order) { best = i }
        }
        return best
    }

    /// Fills `slot` with a new voice and returns its ID.
    mutating func begin(
        slot: Int, clip: Clip, baseGain: Float, category: SoundCategory, priority: Int, duck: Bool
    ) -> VoiceID {
        var v = voices[slot]
        v.phase = .playing
        v.category = category
        v.priority = priority
        v.order = nextOrder
        nextOrder += 1
        v.baseGain = baseGain
        v.duck = duck
        v.clip = clip
        voices[slot] = v
        return VoiceID(slot: slot, serial: UInt32(truncatingIfNeeded: v.order))
    }

    /// Frees the slot (the voice ended, was stopped or stolen).
    mutating func end(slot: Int) {
        voices[slot].phase = .idle
        voices[slot].clip = nil
        voices[slot].duck = false
    }

    /// Whether `id` still names the voice in its slot and it has not ended.
    func isCurrent(_ id: VoiceID) -> Bool {
        id.slot >= 0 && id.slot < voices.count && UInt32(truncatingIfNeeded: voices[id.slot].order) == id.serial && voices[id.slot].isActive
    }

    /// A playing voice, of this pool or of another role's engine, asks the others to duck.
    var anyDucking: Bool { heldDucks > 0 || voices.contains { $0.phase == .playing && $0.duck } }
    /// A solo-ambient voice plays, so other ambient voices hush.
    var anySolo: Bool { voices.contains { $0.phase == .playing && $0.category == .soloAmbient } }

    /// The AL gain of `slot`: its base gain × the system volume, lowered by a
    /// duck (unless it is the ducking voice) and hushed (if it is plain
    /// ambient), times its clip's make-up for the panner (`Clip.levelScale`).
    func gain(slot: Int, volume: Float, duckLevel: Float, hushLevel: Float) -> Float {
        let v = voices[slot]
        var g = v.baseGain * volume * (v.clip?.levelScale ?? 1)
        if !v.duck { g *= duckLevel }
        if v.category == .ambient { g *= hushLevel }
        return g
    }
}

/// Moves a level linearly toward a target, the full 0…1 travel in `rampSeconds`.
struct Ramp {
    var level: Float = 1
    var target: Float = 1

    /// Advances by `dt` seconds; returns whether the level changed.
    mutating func advance(dt: Double, rampSeconds: Double) -> Bool {
        guard level != target else { return false }
        let step = rampSeconds > 0 ? Float(dt / rampSeconds) : 1
        if level < target { level = min(target, level + step) } else { level = max(target, level - step) }
        return true
    }
}
