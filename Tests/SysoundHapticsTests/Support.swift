import Logging
import SysoundCore
import SysoundTestSupport
import SysoundTesting
import XCTest
@testable import SysoundHaptics
#if canImport(Glibc)
import Glibc
#endif

/// Fake devices by path, handed out by `opener` as the kernel would open nodes.
final class FakeDeviceRegistry: Sendable {
    private struct State {
        var devices: [String: FakeForceFeedbackDevice] = [:]
        var denied: Set<String> = []
        var opens: [String] = []
    }
    private let state = Locked(State())

    func add(_ device: FakeForceFeedbackDevice) { state.withLock { $0.devices[device.path] = device } }
    func deny(_ path: String, _ denied: Bool = true) {
        state.withLock { if denied { $0.denied.insert(path) } else { $0.denied.remove(path) } }
    }
    var opens: [String] { state.withLock { $0.opens } }

    var opener: DeviceOpener {
        { [self] (path: String) throws(DeviceError) -> any ForceFeedbackDevice in
            let result: Result<FakeForceFeedbackDevice, DeviceError> = state.withLock { s in
                s.opens.append(path)
                if s.denied.contains(path) { return .failure(.permissionDenied(path: path)) }
                guard let d = s.devices[path] else { return .failure(.gone(path: path)) }
                return .success(d)
            }
            return try result.get()
        }
    }
}

/// A scratch directory standing in for /dev/input, removed when its test ends.
final class ScratchDirectory {
    let path: String
    init(removedAfter test: XCTestCase) throws {
        path = try temporaryDirectory("sysound-haptics", removedAfter: test)
    }
    func touch(_ name: String, mode: mode_t = 0o600) {
        let fd = open(path + "/" + name, O_CREAT | O_WRONLY, mode)
        close(fd)
    }
    func remove(_ name: String) { unlink(path + "/" + name) }
}

func quietLogger() -> Logger {
    var logger = Logger(label: "test.haptics")
    logger.logLevel = .critical
    return logger
}

/// Polls `condition` for up to `ms` milliseconds.
func eventually(_ ms: Int = 2000, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + UInt64(ms) * 1_000_000
    while !condition() {
        if MonotonicClock.now() > deadline { return false }
        MonotonicClock.sleep(ms: 2)
    }
    return true
}

func pattern(_ text: String) -> HapticPattern { try! HapticPattern(parsing: text) }

extension FakeForceFeedbackDevice {
    /// (strong magnitude, time) of every play, resolving ids to effects.
    var plays: [(strong: UInt16, length: UInt16, time: UInt64)] {
        var effects: [Int: RumbleEffect] = [:]
        var result: [(UInt16, UInt16, UInt64)] = []
        for r in records {
            switch r.operation {
            case .upload(let id, let effect, _): effects[id] = effect
            case .play(let id): result.append((effects[id]?.strongMagnitude ?? 0, effects[id]?.lengthMs ?? 0, r.time))
            default: break
            }
        }
        return result
    }

    var stops: [UInt64] { records.compactMap { if case .stop = $0.operation { $0.time } else { nil } } }
    var uploadCount: Int { records.filter { if case .upload = $0.operation { true } else { false } }.count }
    var eraseCount: Int { records.filter { if case .erase = $0.operation { true } else { false } }.count }
}

func strong(_ m: Double) -> UInt16 { RumbleEffect(magnitude: m, lengthMs: 1).strongMagnitude }
