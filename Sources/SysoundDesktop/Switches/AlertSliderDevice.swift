import CEvdev
import SysoundHaptics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An alert slider's input node, as feedbackd's fbd-alert-slider reads it:
/// named "Alert slider", udev's `FEEDBACKD_TYPE=alert-slider`, its first
/// absolute axis the position (0 silent, 1 quiet, 2 full; the OnePlus 6's
/// ABS_SND_PROFILE). libevdev reads the axis at open (EVIOCGABS) and keeps
/// its value as events come. Only reads; loop thread only.
final class AlertSliderDevice {
    /// The name the kernel driver gives it; feedbackd refuses any other.
    static let name = "Alert slider"
    /// udev's property (feedbackd's 90-feedbackd.rules, `ID_PATH=="platform-alert-slider"`).
    static let udevType = "alert-slider"

    let path: String
    let fd: Int32
    /// The absolute axis that carries the position.
    let axis: UInt32
    private let handle: OpaquePointer

    /// Why a node is not an alert slider, or could not be opened.
    enum Refusal: Error, CustomStringConvertible {
        /// Not marked by udev, or not a character device: not a candidate at all (no log line).
        case notMarked
        case failed(String)
        var description: String {
            switch self {
            case .notMarked: "not marked FEEDBACKD_TYPE=alert-slider by udev"
            case .failed(let why): why
            }
        }
    }

    /// Opens `path` (O_RDONLY|O_NONBLOCK) if udev marks it an alert slider and it is one.
    static func open(path: String, udevData: String) throws(Refusal) -> AlertSliderDevice {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFCHR,
            UdevProperties.value(of: "FEEDBACKD_TYPE", directory: udevData, device: UInt64(st.st_rdev)) == udevType
        else { throw .notMarked }
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .failed("cannot open \(path): \(String(cString: strerror(errno)))") }
        var handle: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &handle)
        guard rc == 0, let handle else {
            _ = Glibc.close(fd)
            throw .failed("\(path): libevdev_new_from_fd: \(String(cString: strerror(-rc)))")
        }
        let name = libevdev_get_name(handle).map { String(cString: $0) } ?? ""
        let axis = (0..<UInt32(ABS_CNT)).first { libevdev_has_event_code(handle, UInt32(EV_ABS), $0) == 1 }
        guard name == Self.name, let axis else {
            libevdev_free(handle)
            _ = Glibc.close(fd)
            throw .failed("\(path) is marked an alert slider but is \"\(name)\"\(axis == nil ? " without an absolute axis" : ""); expected \"\(Self.name)\" with one")
        }
        return AlertSliderDevice(path: path, fd: fd, axis: axis, handle: handle)
    }

    private init(path: String, fd: Int32, axis: UInt32, handle: OpaquePointer) {
        self.path = path
        self.fd = fd
        self.axis = axis
        self.handle = handle
    }

    deinit {
        libevdev_free(handle)
        _ = Glibc.close(fd)
    }

    /// The axis's value as libevdev knows it (read at open, kept by `drain`).
    var position: Int32 { libevdev_get_event_value(handle, UInt32(EV_ABS), axis) }

    /// Reads every event queued now (after a SYN_DROPPED, the kernel's state
    /// again); false when the device is gone or failed.
    func drain() -> Bool {
        var event = input_event()
        var flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
        while true {
            let rc = libevdev_next_event(handle, flags, &event)
            if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                flags = LIBEVDEV_READ_FLAG_SYNC.rawValue
            } else if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                continue
            } else if rc == -EAGAIN {
                // The end of a resync, or of what is queued.
                if flags == LIBEVDEV_READ_FLAG_SYNC.rawValue { flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue; continue }
                return true
            } else {
                return false
            }
        }
    }
}
