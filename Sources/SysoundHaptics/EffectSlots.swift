/// The effects uploaded to one device, keyed by their content, so a repeated
/// step replays an uploaded effect instead of uploading again. When the
/// device's slots (EVIOCGEFFECTS) run out, the least recently used effect that
/// is not playing is erased to make room.
struct EffectSlots {
    private struct Entry {
        var id: Int
        var lastUse: UInt64
    }

    let capacity: Int
    private var entries: [RumbleEffect: Entry] = [:]
    private var tick: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    var count: Int { entries.count }

    /// The slot id holding `effect` on `device`, uploading it (and evicting
    /// the least recently used effect not in `inUse`) if needed.
    mutating func slot(
        for effect: RumbleEffect, on device: any ForceFeedbackDevice, inUse: Set<Int> = []
    ) throws(DeviceError) -> Int {
        tick += 1
        if var entry = entries[effect] {
            entry.lastUse = tick
            entries[effect] = entry
            return entry.id
        }
        if entries.count >= capacity {
            try evictOne(from: device, sparing: inUse)
        }
        while true {
            do {
                let id = try device.upload(effect, id: nil)
                entries[effect] = Entry(id: id, lastUse: tick)
                return id
            } catch .noSpace(let path) {
                // Slots are shared by every open handle of the device, so another
                // client may hold some: make room from ours or give up.
                guard !entries.isEmpty else { throw .noSpace(path: path) }
                try evictOne(from: device, sparing: inUse, orFail: .noSpace(path: path))
            }
        }
    }

    /// Forgets everything, e.g. after the device was reopened.
    mutating func reset() {
        entries = [:]
    }

    private mutating func evictOne(
        from device: any ForceFeedbackDevice, sparing inUse: Set<Int>, orFail failure: DeviceError? = nil
    ) throws(DeviceError) {
        let victim = entries.filter { !inUse.contains($0.value.id) }.min { $0.value.lastUse < $1.value.lastUse }
        guard let victim else { throw failure ?? .noSpace(path: device.path) }
        entries[victim.key] = nil
        try device.erase(id: victim.value.id)
    }
}
