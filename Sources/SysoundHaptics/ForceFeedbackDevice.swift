import SysoundCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The kind of effect sysound plays on a device, chosen from what the
/// driver advertises: FF_RUMBLE where there is one (every ff-memless phone
/// driver), else FF_CONSTANT (da7280, the linear-actuator driver of current
/// phones, which refuses rumble), else an FF_PERIODIC sine.
package enum EffectKind: String, Sendable, Hashable {
    case rumble, constant, sine
}

/// What a force-feedback device can do, as the kernel reports it, and what
/// udev and the bus say about what kind of device it is.
package struct ForceFeedbackCapabilities: Sendable, Equatable {
    /// The device's name (EVIOCGNAME), for pins and for people.
    package var name: String
    /// FF_RUMBLE: strong/weak motor magnitudes.
    package var rumble: Bool
    /// FF_PERIODIC: waveform effects.
    package var periodic: Bool
    /// FF_GAIN: overall strength, which carries the strength cap.
    package var gain: Bool
    /// How many effects the device holds at once (EVIOCGEFFECTS).
    package var effectSlots: Int
    /// FF_CONSTANT: a level for a duration.
    package var constant = false
    /// FF_SINE among the periodic waveforms.
    package var sine = false
    /// FF_CUSTOM among the periodic waveforms (firmware or sample effects).
    package var custom = false
    /// The bus (EVIOCGID bustype: BUS_USB 0x03, BUS_BLUETOOTH 0x05, BUS_HOST 0x19, …).
    package var bus: UInt16 = 0
    /// Buttons or sticks of a gamepad, joystick or wheel (`InputBits.isGameController`).
    package var gameController = false
    /// udev's FEEDBACKD_TYPE property (feedbackd's rules set "vibra" on known built-in vibrators).
    package var feedbackdType: String?

    package init(name: String, rumble: Bool, periodic: Bool = false, gain: Bool = false, effectSlots: Int) {
        self.name = name
        self.rumble = rumble
        self.periodic = periodic
        self.gain = gain
        self.effectSlots = effectSlots
    }

    /// The effect kind sysound plays here, nil when it has none it can use
    /// (e.g. FF_PERIODIC with only FF_CUSTOM: firmware waveforms, cs40l50).
    package var effectKind: EffectKind? {
        if rumbleIsNative { return .rumble }
        if constant { return .constant }
        if periodic && sine { return .sine }
        return nil
    }

    /// Whether FF_RUMBLE plays as such. The kernel's ff-core advertises
    /// FF_RUMBLE on every device with FF_PERIODIC and turns a rumble upload
    /// into an FF_PERIODIC sine (input_ff_create, compat_effect); a driver
    /// without FF_SINE then refuses it. da7280 (FF_CONSTANT + FF_PERIODIC
    /// with FF_CUSTOM only) shows FF_RUMBLE that way, and must get
    /// FF_CONSTANT. ff-memless drivers, which really rumble, list FF_SINE.
    package var rumbleIsNative: Bool { rumble && (!periodic || sine) }

    /// A device can be used for haptics when it has an effect kind and room for an effect.
    package var qualifies: Bool { effectKind != nil && effectSlots > 0 }

    /// Why a force-feedback device cannot be used, whatever the choice; nil when it can.
    package var unusableReason: String? {
        if effectKind == nil {
            if periodic && custom {
                return "unsupported: only FF_CUSTOM waveforms (firmware effects), no FF_CONSTANT or FF_SINE (its FF_RUMBLE is the kernel's emulation through FF_SINE)"
            }
            return "no usable effect: no FF_RUMBLE, FF_CONSTANT or FF_PERIODIC sine"
        }
        if effectSlots <= 0 { return "no usable effect: the device holds no effects (EVIOCGEFFECTS 0)" }
        return nil
    }
}

/// One vibration effect as uploaded: a magnitude held for a length, played
/// as the device's effect kind. (Named for the rumble it began as; FF_CONSTANT
/// and FF_PERIODIC sine carry the same magnitude and length.)
package struct RumbleEffect: Sendable, Hashable, CustomStringConvertible {
    package var strongMagnitude: UInt16
    package var weakMagnitude: UInt16
    /// `replay.length`: the device stops the effect after this many ms even if
    /// the engine's own stop never arrives.
    package var lengthMs: UInt16
    /// How the device plays it: FF_RUMBLE (both motors), FF_CONSTANT
    /// (level = strong × 0x7FFF / 0xFFFF, a flat envelope) or FF_PERIODIC sine
    /// (the same as its magnitude).
    package var kind: EffectKind = .rumble
    /// `replay.delay` before each play: with a play count above 1 the kernel
    /// repeats the effect with this gap, no timer of ours per repeat.
    package var delayMs: UInt16 = 0

    package init(strongMagnitude: UInt16, weakMagnitude: UInt16, lengthMs: UInt16, kind: EffectKind = .rumble, delayMs: UInt16 = 0) {
        self.strongMagnitude = strongMagnitude
        self.weakMagnitude = weakMagnitude
        self.lengthMs = lengthMs
        self.kind = kind
        self.delayMs = delayMs
    }

    /// Both motors at `magnitude` (0–1) for `lengthMs`.
    package init(magnitude: Double, lengthMs: Int, kind: EffectKind = .rumble, delayMs: Int = 0) {
        let m = UInt16((min(max(magnitude, 0), 1) * Double(UInt16.max)).rounded())
        self.init(strongMagnitude: m, weakMagnitude: m, lengthMs: UInt16(clamping: lengthMs), kind: kind, delayMs: UInt16(clamping: delayMs))
    }

    /// The signed level of FF_CONSTANT and the magnitude of FF_PERIODIC: 0–0x7FFF.
    package var level: Int16 { Int16(clamping: (Int(strongMagnitude) * Int(Int16.max) + 0x7FFF) / Int(UInt16.max)) }

    package var description: String {
        let delay = delayMs > 0 ? ", after \(delayMs) ms" : ""
        switch kind {
        case .rumble: return "rumble(strong: \(strongMagnitude), weak: \(weakMagnitude), \(lengthMs) ms\(delay))"
        case .constant: return "constant(level: \(level), \(lengthMs) ms\(delay))"
        case .sine: return "sine(magnitude: \(level), \(lengthMs) ms\(delay))"
        }
    }
}

/// Why a device operation failed.
package enum DeviceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The device went away (ENODEV and friends): close it quietly.
    case gone(path: String)
    /// The node exists but may not be opened yet (EACCES/EPERM): udev may
    /// still be setting its permissions; retry on IN_ATTRIB.
    case permissionDenied(path: String)
    /// Every effect slot is taken (ENOSPC).
    case noSpace(path: String)
    /// Any other failure of a named C call.
    case failed(path: String, call: String, errno: Int32)

    /// Whether the driver refused the effect itself (EINVAL and the like), as
    /// opposed to a moment's trouble: da7280 answers EBUSY to an upload while
    /// an effect plays, a signal interrupts, memory runs short.
    package var refusesEffect: Bool {
        guard case .failed(_, let call, let e) = self, call.contains("EVIOCSFF") else { return false }
        return ![EBUSY, EAGAIN, EINTR, ENOMEM, ETIMEDOUT].contains(e)
    }

    package var description: String {
        switch self {
        case .gone(let p): "\(p): the device is gone"
        case .permissionDenied(let p): "\(p): permission denied; add the user to the 'input' group or install a udev rule"
        case .noSpace(let p): "\(p): all force-feedback effect slots are in use"
        case .failed(let p, let call, let e): "\(p): \(call) failed with errno \(e) (\(String(cString: strerror(e))))"
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
package protocol ForceFeedbackDevice: AnyObject, Sendable {
    /// The device node, e.g. `/dev/input/event3`.
    var path: String { get }
    var capabilities: ForceFeedbackCapabilities { get }
    /// Uploads `effect` into a new slot (`id == nil`) or updates slot `id` in
    /// place. Returns the slot id.
    func upload(_ effect: RumbleEffect, id: Int?) throws(DeviceError) -> Int
    /// Frees slot `id` (stopping it if it plays).
    func erase(id: Int) throws(DeviceError)
    /// Starts the effect in slot `id` `count` times, the kernel waiting the
    /// effect's `delayMs` before each (EV_FF with value `count`).
    func play(id: Int, count: Int) throws(DeviceError)
    /// Stops the effect in slot `id`.
    func stop(id: Int) throws(DeviceError)
    /// Sets the overall strength, 0–0xFFFF (needs `capabilities.gain`).
    func setGain(_ gain: UInt16) throws(DeviceError)
    /// Releases the device; its effects are erased by the kernel. Idempotent.
    func close()
}

/// Opens a device node. The engine qualifies the result by its capabilities.
package typealias DeviceOpener = @Sendable (_ path: String) throws(DeviceError) -> any ForceFeedbackDevice

extension ForceFeedbackDevice {
    /// Starts the effect in slot `id` once.
    package func play(id: Int) throws(DeviceError) { try play(id: id, count: 1) }
}
