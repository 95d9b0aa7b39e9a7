/// Something to show on a light, as the manager decided it: a theme's `Led`
/// entry while its event runs, or the flash for an alert.
package struct LedRequest: Sendable, Equatable {
    /// Which light it wants.
    package enum Purpose: String, Sendable {
        /// A notification light: the status LED (the flash LED instead when
        /// feedbackd's `prefer-flash` is on, or where there is no status LED).
        case notification
        /// The flash for alerts: the flash LED, else the status LED.
        case alertFlash = "flash-for-alerts"
    }

    package var color: LedColor
    /// Blinking frequency in mHz; 0 is steady.
    package var frequencyMilliHz: Int
    /// Among the requests on one light the highest shows.
    package var priority: Int
    /// feedbackd's `max-brightness`, percent of the LED's maximum.
    package var maxBrightnessPercent: Int
    package var purpose: Purpose
    /// Blinks this many times, then ends by itself; nil: until ended.
    package var cycles: Int?
    /// Who asked, for `status`: "event message-missed-sms", "flash for alerts".
    package var owner: String

    package init(
        color: LedColor, frequencyMilliHz: Int = 0, priority: Int = 0, maxBrightnessPercent: Int = 100,
        purpose: Purpose = .notification, cycles: Int? = nil, owner: String
    ) {
        self.color = color
        self.frequencyMilliHz = max(0, frequencyMilliHz)
        self.priority = priority
        self.maxBrightnessPercent = min(max(maxBrightnessPercent, 0), 100)
        self.purpose = purpose
        self.cycles = cycles
        self.owner = owner
    }

    /// For `status`: "blue, 1000 mHz, priority 10 (event message-missed-sms)".
    package var summary: String {
        (frequencyMilliHz == 0 ? "\(color) steady" : "\(color) blinking \(frequencyMilliHz) mHz")
            + (cycles.map { ", \($0) times" } ?? "") + ", priority \(priority) (\(owner))"
    }
}

/// One shown request, to end it.
package struct LedShowID: Sendable, Hashable, CustomStringConvertible {
    package let value: UInt64
    package var description: String { "led-\(value)" }
}
