import SysoundCore

/// What a force-feedback device can do, as the kernel reports it.
public struct ForceFeedbackCapabilities: Sendable, Equatable {
    /// The device's name (EVIOCGNAME), for pins and for people.
    public var name: String
    /// FF_RUMBLE: strong/weak motor magnitudes. Required to qualify.
    public var rumble: Bool
    /// FF_PERIODIC: waveform effects.
    public var periodic: Bool
    /// FF_GAIN: overall strength, which carries the strength cap.
    public var gain: Bool
    /// How many effects the device holds at once (EVIOCGEFFECTS).
    public var effectSlots: Int

    public init(name: String, rumble: Bool, periodic: Bool = false, gain: Bool = false, effectSlots: Int) {
        self.name = name
        self.rumble = rumble
        self.periodic = periodic
        self.gain = gain
        self.effectSlots = effectSlots
    }

    /// A device is used for haptics when it has rumble and room for an effect.
    public var qualifies: Bool { rumble && effectSlots > 0 }
}

/// An FF_RUMBLE effect: both motors' magnitudes and how long it runs by itself.
public struct RumbleEffect: Sendable, Hashable, CustomStringConvertible {
    public var strongMagnitude: UInt16
    public var weakMagnitude: UInt16
    /// `replay.length`: the device stops the effect after this many ms even if
    /// the engine's own stop never arrives.
    public var lengthMs: UInt16

    public init(strongMagnitude: UInt16, weakMagnitude: UInt16, lengthMs: UInt16) {
        self.strongMagnitude = strongMagnitude
        self.weakMagnitude = weakMagnitude
        self.lengthMs = lengthMs
    }

    /// Both motors at `magnitude` (0–1) for `lengthMs`.
    public init(magnitude: Double, lengthMs: Int) {
        let m = UInt16((min(max(magnitude, 0), 1) * Double(UInt16.max)).rounded())
        self.init(strongMagnitude: m, weakMagnitude: m, lengthMs: UInt16(clamping: lengthMs))
    }

    public var description: String { "rumble(strong: \(strongMagnitude), weak: \(weakMagnitude), \(lengthMs) ms)" }
}

/// Why a device operation failed.
public enum DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The device went away (ENODEV and friends): close it quietly.
    case gone(path: String)
    /// The node exists but may not be opened yet (EACCES/EPERM): udev may
    /// still be setting its permissions; retry on IN_ATTRIB.
    case permissionDenied(path: String)
    /// Every effect slot is taken (ENOSPC).
    case noSpace(path: String)
    /// Any other failure of a named C call.
    case failed(path: String, call: String, errno: Int32)

    public var description: String {
        switch self {
        case .gone(let p): "\(p): the device is gone"
        case .permissionDenied(let p): "\(p): permission denied; add the user to the 'input' group or install a udev rule"
        case .noSpace(let p): "\(p): all force-feedback effect slots are in use"
        case .failed(let p, let call, let e): "\(p): \(call) failed with errno \(e)"
        }
    }
}

/// The small set of operations the engine needs from a force-feedback device.
/// Devices only execute; all decisions are the engine's. Implemented by
/// `EvdevDevice` (the kernel) and, for tests and the bench, SysoundTesting's
/// `FakeForceFeedbackDevice`.
///
/// The engine calls a device from one thread at a time; implementations must
/// still be safe to share because the engine hands them between threads.
public protocol ForceFeedbackDevice: AnyObject, Sendable {
    /// The device node, e.g. `/dev/input/event3`.
    var path: String { get }
    var capabilities: ForceFeedbackCapabilities { get }
    /// Uploads `effect` into a new slot (`id == nil`) or updates slot `id` in
    /// place. Returns the slot id.
    func upload(_ effect: RumbleEffect, id: Int?) throws(DeviceError) -> Int
    /// Frees slot `id` (stopping it if it plays).
    func erase(id: Int) throws(DeviceError)
    /// Starts the effect in slot `id` once.
    func play(id: Int) throws(DeviceError)
    /// Stops the effect in slot `id`.
    func stop(id: Int) throws(DeviceError)
    /// Sets the overall strength, 0–0xFFFF (needs `capabilities.gain`).
    func setGain(_ gain: UInt16) throws(DeviceError)
    /// Releases the device; its effects are erased by the kernel. Idempotent.
    func close()
}

/// Opens a device node. The engine qualifies the result by its capabilities.
public typealias DeviceOpener = @Sendable (_ path: String) throws(DeviceError) -> any ForceFeedbackDevice
