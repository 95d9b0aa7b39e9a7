import CEvdev
import CSysoundShims
import SysoundCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A kernel force-feedback device behind an evdev node. Capabilities come from
/// libevdev, effects go through the EVIOC* shims in CSysoundShims.
///
/// Effects belong to the open file handle, so the engine keeps it open for as
/// long as it uses the device.
package final class EvdevDevice: ForceFeedbackDevice {
    package let path: String
    package let capabilities: ForceFeedbackCapabilities
    /// The open descriptor, or -1 once closed.
    private let fd: Locked<Int32>

    private init(path: String, fd: Int32, capabilities: ForceFeedbackCapabilities) {
        self.path = path
        self.fd = Locked(fd)
        self.capabilities = capabilities
    }

    deinit { close() }

    /// Where udev keeps each device's properties (`c13:<minor>` for an
    /// input node); a test passes a directory of its own.
    package static let udevDataDirectory = "/run/udev/data"

    /// Opens `path` read-write (open(2)), reads its capabilities with
    /// libevdev_new_from_fd, its slot count with EVIOCGEFFECTS, and udev's
    /// FEEDBACKD_TYPE from `udevData`.
    package static func open(path: String, udevData: String = udevDataDirectory) throws(DeviceError) -> EvdevDevice {
        let fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw classify(errno, path: path, call: "open") }
        var handle: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &handle)
        guard rc == 0, let handle else {
            _ = Glibc.close(fd)
            throw classify(-rc, path: path, call: "libevdev_new_from_fd")
        }
        defer { libevdev_free(handle) }
        let name = libevdev_get_name(handle).map { String(cString: $0) } ?? ""
        let hasFF = libevdev_has_event_type(handle, UInt32(EV_FF)) == 1
        func has(_ code: Int32) -> Bool { hasFF && libevdev_has_event_code(handle, UInt32(EV_FF), UInt32(code)) == 1 }
        var slots: Int32 = 0
        if hasFF && sysound_ff_effect_slots(fd, &slots) != 0 {
            let e = errno
            _ = Glibc.close(fd)
            throw classify(e, path: path, call: "ioctl(EVIOCGEFFECTS)")
        }
        var caps = ForceFeedbackCapabilities(
            name: name, rumble: has(FF_RUMBLE), periodic: has(FF_PERIODIC), gain: has(FF_GAIN),
            effectSlots: Int(slots))
        caps.constant = has(FF_CONSTANT)
        caps.sine = has(FF_SINE)
        caps.custom = has(FF_CUSTOM)
        caps.bus = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(handle))
        caps.gameController = InputBits.isGameController(
            hasKey: { libevdev_has_event_code(handle, UInt32(EV_KEY), UInt32($0)) == 1 },
            hasAbs: { libevdev_has_event_code(handle, UInt32(EV_ABS), UInt32($0)) == 1 },
            isAccelerometer: libevdev_has_property(handle, UInt32(INPUT_PROP_ACCELEROMETER)) == 1)
        var st = stat()
        if fstat(fd, &st) == 0 {
            caps.feedbackdType = UdevProperties.value(
                of: "FEEDBACKD_TYPE", directory: udevData, device: UInt64(st.st_rdev))
        }
        return EvdevDevice(path: path, fd: fd, capabilities: caps)
    }

    /// The opener the engine uses by default.
    package static let opener: DeviceOpener = opener()

    /// An opener reading udev's properties from `udevData`.
    package static func opener(udevData: String = udevDataDirectory) -> DeviceOpener {
        { (path: String) throws(DeviceError) -> any ForceFeedbackDevice in
            try EvdevDevice.open(path: path, udevData: udevData)
        }
    }

    /// Uploads with sysound_ff_upload (ioctl EVIOCSFF), as the effect's kind.
    package func upload(_ effect: RumbleEffect, id: Int?) throws(DeviceError) -> Int {
        var ff = ff_effect()
        ff.id = Int16(id ?? -1)
        ff.replay.length = effect.lengthMs
        ff.replay.delay = effect.delayMs
        switch effect.kind {
        case .rumble:
            ff.type = UInt16(FF_RUMBLE)
            ff.u.rumble.strong_magnitude = effect.strongMagnitude
            ff.u.rumble.weak_magnitude = effect.weakMagnitude
        case .constant:
            // A flat envelope, written out: attack and fade at the level
            // itself, so the whole length plays at it (ff-memless would only
            // step a ramp every 50 ms, too coarse for pulses of tens of ms).
            ff.type = UInt16(FF_CONSTANT)
            ff.u.constant.level = effect.level
            ff.u.constant.envelope.attack_level = UInt16(effect.level)
            ff.u.constant.envelope.fade_level = UInt16(effect.level)
        case .sine:
            ff.type = UInt16(FF_PERIODIC)
            ff.u.periodic.waveform = UInt16(FF_SINE)
            ff.u.periodic.magnitude = effect.level
            // 5 ms: about 200 Hz, near a linear actuator's resonance
            // (ff-memless ignores the period and plays |magnitude|).
            ff.u.periodic.period = 5
            ff.u.periodic.envelope.attack_level = UInt16(effect.level)
            ff.u.periodic.envelope.fade_level = UInt16(effect.level)
        }
        try call("ioctl(EVIOCSFF)") { sysound_ff_upload($0, &ff) }
        return Int(ff.id)
    }

    /// Erases with sysound_ff_erase (ioctl EVIOCRMFF).
    package func erase(id: Int) throws(DeviceError) {
        try call("ioctl(EVIOCRMFF)") { sysound_ff_erase($0, Int32(id)) }
    }

    /// Writes {EV_FF, id, count} with sysound_ff_write_event.
    package func play(id: Int, count: Int) throws(DeviceError) {
        try call("write(EV_FF play)") { sysound_ff_write_event($0, UInt16(EV_FF), UInt16(id), Int32(clamping: max(count, 1))) }
    }

    /// Writes {EV_FF, id, 0} with sysound_ff_write_event.
    package func stop(id: Int) throws(DeviceError) {
        try call("write(EV_FF stop)") { sysound_ff_write_event($0, UInt16(EV_FF), UInt16(id), 0) }
    }

    /// Writes {EV_FF, FF_GAIN, gain} with sysound_ff_write_event.
    package func setGain(_ gain: UInt16) throws(DeviceError) {
        try call("write(FF_GAIN)") { sysound_ff_write_event($0, UInt16(EV_FF), UInt16(FF_GAIN), Int32(gain)) }
    }

    /// close(2); the kernel erases this handle's effects.
    package func close() {
        fd.withLock { fd in
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }
    }

    private func call(_ name: String, _ body: (Int32) -> Int32) throws(DeviceError) {
        let failure: Int32? = fd.withLock { fd in
            guard fd >= 0 else { return ENODEV }
            return body(fd) == 0 ? nil : errno
        }
        if let failure { throw Self.classify(failure, path: path, call: name) }
    }

    /// Maps an errno to what the engine does about it.
    static func classify(_ e: Int32, path: String, call: String) -> DeviceError {
        switch e {
        case ENODEV, ENOENT, ENXIO, EBADF, EIO: .gone(path: path)
        case EACCES, EPERM: .permissionDenied(path: path)
        case ENOSPC: .noSpace(path: path)
        default: .failed(path: path, call: call, errno: e)
        }
    }
}
