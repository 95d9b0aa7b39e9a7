import SysoundCore

/// Which force-feedback devices vibrate for the user interface, and why
/// (config `[haptics] devices`). A phone's UI pulse belongs on its built-in
/// motor: a game controller plugged in beside it must not buzz for a key
/// press, however low its event node.
package enum DeviceChoice: Sendable, Equatable, CustomStringConvertible {
    /// The default: built-in vibrators only (`builtInVerdict`).
    case builtIn
    /// Every device with a usable effect (`devices = ["all"]`).
    case all
    /// Exactly the devices these pins match (paths or name patterns).
    case chosen([DevicePin])

    /// From the configuration's entries: empty is `.builtIn`, `"all"` alone
    /// is `.all`, anything else pins (a path, or a shell pattern on the name).
    /// Throws a message naming the bad entry and what to write instead.
    package init(entries: [String]) throws(DeviceChoiceError) {
        if entries.isEmpty { self = .builtIn; return }
        if let (entry, why) = HapticDeviceEntries.problem(entries) { throw DeviceChoiceError(entry: entry, why: why) }
        if entries == ["all"] { self = .all; return }
        var pins: [DevicePin] = []
        for entry in entries { pins.append(DevicePin(entry)) }
        self = .chosen(pins)
    }

    package var description: String {
        switch self {
        case .builtIn: "built-in vibrators"
        case .all: "all"
        case .chosen(let pins): pins.map(\.description).joined(separator: ", ")
        }
    }

    /// Whether the device at `path` is used, and the reason `sysound status` shows.
    package func verdict(path: String, _ c: ForceFeedbackCapabilities) -> DeviceVerdict {
        if let why = c.unusableReason { return DeviceVerdict(used: false, reason: why) }
        switch self {
        case .all:
            return DeviceVerdict(used: true, reason: "[haptics] devices = [\"all\"]")
        case .chosen(let pins):
            if let pin = pins.first(where: { $0.matches(path: path, name: c.name) }) {
                return DeviceVerdict(used: true, reason: "chosen by [haptics] devices (\(pin))")
            }
            return DeviceVerdict(used: false, reason: "not chosen by [haptics] devices")
        case .builtIn:
            return Self.builtInVerdict(c)
        }
    }

    /// The default rule. udev's FEEDBACKD_TYPE=vibra comes first: feedbackd's
    /// rules set it by driver name on the vibrators phones ship (gpio-vibrator,
    /// drv260x:haptics, …), so it is the distribution's own word. A device
    /// without it (no feedbackd rules installed, or a driver they do not
    /// list) still counts as built in when nothing says otherwise: not on USB
    /// or Bluetooth, where controllers and other plug-in devices live, and no
    /// game-controller buttons or sticks (a controller can also be on BUS_HOST
    /// or BUS_VIRTUAL through a platform driver or uinput).
    static func builtInVerdict(_ c: ForceFeedbackCapabilities) -> DeviceVerdict {
        if c.feedbackdType == "vibra" { return DeviceVerdict(used: true, reason: "udev FEEDBACKD_TYPE=vibra") }
        if c.bus == InputBits.busUSB { return DeviceVerdict(used: false, reason: "not built in: on USB (choose it with [haptics] devices)") }
        if c.bus == InputBits.busBluetooth {
            return DeviceVerdict(used: false, reason: "not built in: on Bluetooth (choose it with [haptics] devices)")
        }
        if c.gameController { return DeviceVerdict(used: false, reason: "game controller (choose it with [haptics] devices)") }
        return DeviceVerdict(used: true, reason: "built in: \(InputBits.busName(c.bus)), no game-controller buttons or sticks")
    }
}

/// A choice for one device.
package struct DeviceVerdict: Sendable, Equatable {
    package var used: Bool
    package var reason: String
}

/// A `[haptics] devices` entry that cannot be used, and what to write instead.
package struct DeviceChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    package var entry: String
    package var why: String
    package var description: String { "[haptics] devices entry \"\(entry)\": \(why)" }
}

/// The evdev bits that tell a game controller from a vibrator, in one place.
package enum InputBits {
    package static let busUSB: UInt16 = 0x03
    package static let busBluetooth: UInt16 = 0x05
    package static let busVirtual: UInt16 = 0x06
    package static let busHost: UInt16 = 0x19

    static func busName(_ bus: UInt16) -> String {
        switch bus {
        case busHost: "BUS_HOST"
        case busVirtual: "BUS_VIRTUAL"
        case 0x18: "BUS_I2C"
        case 0x1C: "BUS_SPI"
        case 0: "no bus"
        default: "bus 0x\(String(bus, radix: 16))"
        }
    }

    /// A game controller, joystick or wheel, from its key and axis bits.
    ///
    /// - Buttons BTN_JOYSTICK (0x120, BTN_TRIGGER…BTN_DEAD) through BTN_THUMBR
    ///   (0x13e, the BTN_GAMEPAD range BTN_SOUTH…BTN_THUMBR), or
    ///   BTN_TRIGGER_HAPPY1…40 (0x2c0–0x2e7, pads' extra buttons and d-pads):
    ///   what udev's input_id and joydev take for a joystick. No vibrator
    ///   driver reports any key.
    /// - Or sticks, triggers and wheels: a second stick (ABS_RX/ABS_RY), a hat
    ///   (ABS_HAT0X), throttle, rudder, wheel, gas or brake; or ABS_X with
    ///   ABS_Y on a device that is not a touch surface (BTN_TOOL_*/BTN_TOUCH,
    ///   0x140–0x14f) and not an accelerometer (INPUT_PROP_ACCELEROMETER):
    ///   touchscreens and phone accelerometers have X/Y axes too, and a touch
    ///   panel with haptics is a built-in device.
    package static func isGameController(
        hasKey: (Int) -> Bool, hasAbs: (Int) -> Bool, isAccelerometer: Bool
    ) -> Bool {
        if (0x120...0x13e).contains(where: hasKey) || (0x2c0...0x2e7).contains(where: hasKey) { return true }
        // ABS_RX 3, ABS_RY 4, ABS_THROTTLE 6, ABS_RUDDER 7, ABS_WHEEL 8, ABS_GAS 9, ABS_BRAKE 10, ABS_HAT0X 0x10.
        if [3, 4, 6, 7, 8, 9, 10, 0x10].contains(where: hasAbs) && !isAccelerometer { return true }
        let touch = (0x140...0x14f).contains(where: hasKey)
        return hasAbs(0) && hasAbs(1) && !touch && !isAccelerometer
    }
}
