/// The effects uploaded to one device, keyed by their content, so a repeated
/// step replays an uploaded effect instead of uploading again. Bookkeeping
/// only: the uploads and erases themselves run on a worker (they can block),
/// and their results come back through `insert`.
///
/// When the device's slots (EVIOCGEFFECTS) run out, the least recently used
/// effect that is not in use is given up to make room.
struct EffectSlots {
    private struct Entry {
        var id: Int
        var lastUse: UInt64
    }

    /// The slots this handle may fill: EVIOCGEFFECTS, lowered when the kernel
    /// says ENOSPC earlier (other handles of the device hold the rest).
    private(set) var capacity: Int
    private var entries: [RumbleEffect: Entry] = [:]
    private var tick: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    var count: Int { entries.count }

    func contains(_ effect: RumbleEffect) -> Bool { entries[effect] != nil }

    /// The slot holding `effect`, marked as used now; nil if it is not uploaded.
    mutating func id(for effect: RumbleEffect) -> Int? {
        guard var entry = entries[effect] else { return nil }
        tick += 1
        entry.lastUse = tick
        entries[effect] = entry
        return entry.id
    }

    /// Records an upload that landed in slot `id`.
    mutating func insert(_ effect: RumbleEffect, id: Int) {
        tick += 1
        entries[effect] = Entry(id: id, lastUse: tick)
    }

    /// Gives up slots so that `count` more effects fit, least recently used
    /// first, never one in `inUse`. Returns the ids to erase on the device;
    /// fewer than asked for when the rest are in use.
    mutating func makeRoom(for count: Int, sparing inUse: Set<Int>) -> [Int] {
        var victims: [Int] = []
        while entries.count + count - victims.count > capacity {
            let candidates = entries.filter { !inUse.contains($0.value.id) && !victims.contains($0.value.id) }
            guard let victim = candidates.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
            entries[victim.key] = nil
            victims.append(victim.value.id)
        }
        return victims
    }

    /// How many more effects fit without making room.
    var free: Int { max(capacity - entries.count, 0) }

    /// The kernel said ENOSPC although our own count is below `capacity`:
    /// other handles hold the rest, so ours is what we have.
    mutating func lowerCapacityToCount() {
        capacity = max(entries.count, 1)
    }

    /// Forgets everything, e.g. after the device was reopened.
    mutating func reset() {
        entries = [:]
    }
}
