#if canImport(Glibc)
import Glibc
#endif
import SysoundCore
import SysoundHaptics

/// A force-feedback device in memory, with the kernel's rules for slots and
/// ids, that records every operation with its monotonic time. For logic tests
/// of the engine, the daemon and benchmarks; it stands behind the public
/// `ForceFeedbackDevice` protocol only, like `EvdevDevice`, so the product
/// needs nothing opened up for it.
package final class FakeForceFeedbackDevice: ForceFeedbackDevice {
    /// One recorded operation.
    package enum Operation: Sendable, Equatable {
        case upload(id: Int, effect: RumbleEffect, new: Bool)
        case erase(id: Int)
        case play(id: Int)
        /// A play the kernel repeats `count` times (EV_FF value above 1).
        case playRepeated(id: Int, count: Int)
        case stop(id: Int)
        case gain(UInt16)
        case close
    }

    /// An operation and when it happened (`MonotonicClock.now()`).
    package struct Record: Sendable, Equatable {
        package var time: UInt64
        package var operation: Operation
    }

    private struct State {
        var effects: [Int: RumbleEffect] = [:]
        var records: [Record] = []
        var removed = false
        var closed = false
        var gain: UInt16 = .max
        /// How long each upload blocks, as a uinput device whose process answers late (ns).
        var uploadDelay: UInt64 = 0
        /// Uploads still to answer ENODEV, as a uinput node does until UI_DEV_CREATE returns.
        var uploadsNotReady = 0
        /// Effect kinds whose upload fails with this errno, as a driver that does not take them.
        var refused: (kinds: Set<EffectKind>, errno: Int32)?
    }

    package let path: String
    package let capabilities: ForceFeedbackCapabilities
    private let state = Locked(State())

    package init(path: String, capabilities: ForceFeedbackCapabilities) {
        self.path = path
        self.capabilities = capabilities
    }

    /// A rumble device named `name` with `slots` effect slots and FF_GAIN.
    package convenience init(path: String, name: String = "fake rumble", slots: Int = 16, gain: Bool = true) {
        self.init(path: path, capabilities: ForceFeedbackCapabilities(
            name: name, rumble: true, periodic: false, gain: gain, effectSlots: slots))
    }

    /// Everything recorded so far.
    package var records: [Record] { state.withLock { $0.records } }
    /// The effects uploaded now, by id.
    package var effects: [Int: RumbleEffect] { state.withLock { $0.effects } }
    package var isClosed: Bool { state.withLock { $0.closed } }
    package var gain: UInt16 { state.withLock { $0.gain } }

    /// Simulates unplugging: every later operation fails with `.gone`, as
    /// the kernel answers ENODEV.
    package func unplug() { state.withLock { $0.removed = true } }

    /// Makes every later upload block for `seconds` before it is done (the
    /// kernel's EVIOCSFF on a uinput device waits up to 30 s for its process).
    /// A new value applies to uploads under way too: 0 lets them finish now.
    package func blockUploads(seconds: Double) {
        state.withLock { $0.uploadDelay = UInt64(seconds * 1e9) }
    }

    /// Makes the next `count` uploads fail with `.gone` (ENODEV) although the
    /// device stays: a node that appeared a moment before its driver is ready.
    package func answerUploadsNotReady(_ count: Int) {
        state.withLock { $0.uploadsNotReady = count }
    }

    /// Makes every later upload of an effect of `kinds` fail with `errno`
    /// (EINVAL: da7280 refuses rumble and sine that way).
    package func refuseUploads(of kinds: Set<EffectKind> = [.rumble, .constant, .sine], errno: Int32 = EINVAL) {
        state.withLock { $0.refused = (kinds, errno) }
    }

    package func upload(_ effect: RumbleEffect, id: Int?) throws(DeviceError) -> Int {
        let began = MonotonicClock.now()
        while MonotonicClock.now() - began < state.withLock({ $0.uploadDelay }) { usleep(1000) }
        let result: Result<Int, DeviceError> = state.withLock { s in
            if let failure = usable(s) { return .failure(failure) }
            if let refused = s.refused, refused.kinds.contains(effect.kind) {
                return .failure(.failed(path: path, call: "ioctl(EVIOCSFF)", errno: refused.errno))
            }
            if s.uploadsNotReady > 0 {
                s.uploadsNotReady -= 1
                return .failure(.gone(path: path))
            }
            let slot: Int
            if let id {
                guard s.effects[id] != nil else {
                    return .failure(.failed(path: path, call: "ioctl(EVIOCSFF)", errno: 22))
                }
                slot = id
            } else {
                guard let free = (0..<capabilities.effectSlots).first(where: { s.effects[$0] == nil }) else {
                    return .failure(.noSpace(path: path))
                }
                slot = free
            }
            s.effects[slot] = effect
            s.records.append(Record(time: MonotonicClock.now(), operation: .upload(id: slot, effect: effect, new: id == nil)))
            return .success(slot)
        }
        return try result.get()
    }

    package func erase(id: Int) throws(DeviceError) {
        try perform(.erase(id: id), needs: id) { $0.effects[id] = nil }
    }

    package func play(id: Int, count: Int) throws(DeviceError) {
        try perform(count == 1 ? .play(id: id) : .playRepeated(id: id, count: count), needs: id) { _ in }
    }
    package func stop(id: Int) throws(DeviceError) { try perform(.stop(id: id), needs: id) { _ in } }

    package func setGain(_ gain: UInt16) throws(DeviceError) {
        try perform(.gain(gain), needs: nil) { $0.gain = gain }
    }

    package func close() {
        state.withLock { s in
            guard !s.closed else { return }
            s.closed = true
            s.effects = [:]
            s.records.append(Record(time: MonotonicClock.now(), operation: .close))
        }
    }

    private func usable(_ s: State) -> DeviceError? {
        if s.removed { return .gone(path: path) }
        if s.closed { return .failed(path: path, call: "use after close", errno: 9) }
        return nil
    }

    private func perform(_ op: Operation, needs id: Int?, _ change: (inout State) -> Void) throws(DeviceError) {
        let failure: DeviceError? = state.withLock { s in
            if let failure = usable(s) { return failure }
            if let id, s.effects[id] == nil {
                return .failed(path: path, call: "\(op)", errno: 22)  // EINVAL, as evdev answers
            }
            change(&s)
            s.records.append(Record(time: MonotonicClock.now(), operation: op))
            return nil
        }
        if let failure { throw failure }
    }
}
