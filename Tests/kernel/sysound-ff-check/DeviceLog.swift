import SysoundCore
import SysoundHaptics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the uinput device emulator (Tests/kernel/ffdev.c) recorded.
struct DeviceLog {
    enum Entry: Equatable {
        case create(instance: Int)
        case destroy(instance: Int)
        case upload(id: Int, strong: Int, weak: Int, lengthMs: Int, new: Bool)
        /// An FF_CONSTANT effect (a da7280-shaped device): its level and length.
        case uploadConstant(id: Int, level: Int, lengthMs: Int, new: Bool)
        /// An upload the device refused (EINVAL), by effect type.
        case uploadRefused(type: Int)
        case erase(id: Int)
        case play(id: Int)
        case stop(id: Int)
        case gain(Int)
        case other(String)
    }

    struct Record: Equatable {
        /// CLOCK_MONOTONIC, microseconds.
        var timeUs: Int
        var entry: Entry
    }

    let path: String

    /// Every record so far (open/read; the emulator writes whole lines).
    func records() -> [Record] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        // Only complete lines: the last one may still be being written.
        let complete = text.hasSuffix("\n") ? Substring(text) : text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]
        return complete.split(separator: "\n").compactMap(Self.parse)
    }

    static func parse(_ line: Substring) -> Record? {
        let f = line.split(separator: " ").map(String.init)
        guard f.count >= 2, let t = Int(f[0]) else { return nil }
        let n = f.dropFirst(2).map { Int($0) ?? -1 }
        let entry: Entry
        switch (f[1], n.count) {
        case ("create", 1): entry = .create(instance: n[0])
        case ("destroy", 1): entry = .destroy(instance: n[0])
        case ("upload", 5): entry = .upload(id: n[0], strong: n[1], weak: n[2], lengthMs: n[3], new: f[6] == "new")
        case ("upload-constant", 6): entry = .uploadConstant(id: n[0], level: n[1], lengthMs: n[2], new: f[7] == "new")
        case ("upload-refused", 2) where f[2] == "type": entry = .uploadRefused(type: n[1])
        case ("erase", 1): entry = .erase(id: n[0])
        case ("play", 2): entry = .play(id: n[0])
        case ("stop", 1): entry = .stop(id: n[0])
        case ("gain", 1): entry = .gain(n[0])
        default: entry = .other(String(line))
        }
        return Record(timeUs: t, entry: entry)
    }

    /// Waits up to `timeoutMs` for records after index `from` that satisfy `done`.
    func wait(from: Int, timeoutMs: Int = 2000, until done: ([Record]) -> Bool) -> [Record] {
        let deadline = Clock.nowUs() + timeoutMs * 1000
        while true {
            let recent = Array(records().dropFirst(from))
            if done(recent) || Clock.nowUs() > deadline { return recent }
            Clock.sleep(ms: 5)
        }
    }
}

/// A played effect: what the device was told to play and when, with when it was stopped.
struct Pulse: Equatable {
    /// The strong magnitude of a rumble, the level of an FF_CONSTANT effect.
    var strong: Int
    var lengthMs: Int
    var playUs: Int
    var stopUs: Int?
}

extension Pulse {
    /// The pulses a device plays for `pattern`: the magnitude as a rumble
    /// device sees it (full is 0xFFFF), times from the pattern's start.
    static func expected(from pattern: HapticPattern) -> [Pulse] {
        var t = 0
        var pulses: [Pulse] = []
        for step in pattern.steps {
            if step.magnitude > 0 {
                let strong = Int(RumbleEffect(magnitude: step.magnitude, lengthMs: 1).strongMagnitude)
                pulses.append(Pulse(strong: strong, lengthMs: step.durationMs, playUs: t * 1000, stopUs: (t + step.durationMs) * 1000))
            }
            t += step.durationMs
        }
        return pulses
    }
}

/// How far what devices played lies from when their renderings said, µs,
/// from the schedule's start: the first play of any device (a request played
/// from the slots starts its schedule when the loop takes it, not when it was
/// asked: that hop is the first step's latency, a figure of its own).
struct TimingErrors {
    /// Signed: each play and stop, its time from the start less the rendering's.
    var signed: [Int] = []
    /// Whether every device recorded every pulse of its rendering.
    var complete = true
    let startUs: Int

    /// For devices that recorded `pulses`, in all.
    init(starts pulses: [[Pulse]]) {
        startUs = pulses.compactMap { $0.first?.playUs }.min() ?? 0
    }

    /// Adds a device's pulses, `seen`, against `expected`; the play that
    /// starts the schedule is its reference, not a measurement.
    mutating func add(_ seen: [Pulse], expected: [Pulse]) {
        guard seen.count == expected.count else { complete = false; return }
        for (got, want) in zip(seen, expected) {
            if got.playUs != startUs || want.playUs != 0 { signed.append(got.playUs - startUs - want.playUs) }
            signed.append((got.stopUs ?? Int.max / 2) - startUs - (want.stopUs ?? 0))
        }
    }

    var median: Int { complete && !signed.isEmpty ? signed.map(abs).sorted()[signed.count / 2] : Int.max }
    var worst: Int { complete ? signed.map(abs).max() ?? Int.max : Int.max }
}

extension [DeviceLog.Record] {
    /// Pulses in order, resolving each play's id to the effect uploaded last
    /// under that id before it.
    func pulses() -> [Pulse] {
        var effects: [Int: (strong: Int, length: Int)] = [:]
        var pulses: [Pulse] = []
        var open: [Int: Int] = [:]  // id -> index in pulses
        for r in self {
            switch r.entry {
            case .upload(let id, let strong, _, let length, _): effects[id] = (strong, length)
            case .uploadConstant(let id, let level, let length, _): effects[id] = (level, length)
            case .play(let id):
                let e = effects[id] ?? (-1, -1)
                open[id] = pulses.count
                pulses.append(Pulse(strong: e.strong, lengthMs: e.length, playUs: r.timeUs))
            case .stop(let id):
                if let i = open.removeValue(forKey: id) { pulses[i].stopUs = r.timeUs }
            default: break
            }
        }
        return pulses
    }

    var uploads: Int { filter { if case .upload = $0.entry { true } else { false } }.count }
    var constantUploads: Int { filter { if case .uploadConstant = $0.entry { true } else { false } }.count }
    var refusedUploads: Int { filter { if case .uploadRefused = $0.entry { true } else { false } }.count }
    var erases: Int { filter { if case .erase = $0.entry { true } else { false } }.count }
    var gains: [Int] { compactMap { if case .gain(let g) = $0.entry { g } else { nil } } }
}

enum Clock {
    static func nowUs() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts.tv_sec * 1_000_000 + ts.tv_nsec / 1000
    }

    static func sleep(ms: Int) { usleep(UInt32(ms * 1000)) }

    /// The median of how late plain sleeps of these lengths wake, µs: what
    /// this machine's own timers and scheduler give right now (in an
    /// emulated guest on a busy host, milliseconds).
    static func medianLateness(ofSleeps lengths: [Int]) -> Int {
        let late = lengths.map { ms in
            let start = nowUs()
            sleep(ms: ms)
            return nowUs() - start - ms * 1000
        }.sorted()
        return late[late.count / 2]
    }
}
