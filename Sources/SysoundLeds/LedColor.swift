/// A colour as feedbackd's themes name it (`red`, `green`, `blue`, `white`
/// or `#RRGGBB`), 8 bits a channel.
package struct LedColor: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8

    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    package static let red = LedColor(red: 255, green: 0, blue: 0)
    package static let green = LedColor(red: 0, green: 255, blue: 0)
    package static let blue = LedColor(red: 0, green: 0, blue: 255)
    package static let white = LedColor(red: 255, green: 255, blue: 255)

    /// The names feedbackd knows, and an LED's own colour names (udev's
    /// `FEEDBACKD_LED_COLOR`, the colour part of `device:color:function`).
    static let named: [String: LedColor] = ["red": .red, "green": .green, "blue": .blue, "white": .white]

    /// Parses a theme's or udev's spelling; nil for anything else.
    package init?(parsing text: String) {
        let t = text.lowercased()
        if let color = Self.named[t] {
            self = color
            return
        }
        guard t.hasPrefix("#"), t.count == 7, let value = UInt32(t.dropFirst(), radix: 16) else { return nil }
        self.init(red: UInt8(value >> 16 & 0xff), green: UInt8(value >> 8 & 0xff), blue: UInt8(value & 0xff))
    }

    /// One channel's share (0–1) of the colour, by the channel's name
    /// (`multi_index`): a white channel gets what the three have in common.
    func share(of channel: String) -> Double {
        switch channel {
        case "red": Double(red) / 255
        case "green": Double(green) / 255
        case "blue": Double(blue) / 255
        case "white": Double(min(red, green, blue)) / 255
        default: 0
        }
    }

    /// How bright the colour is on a light of one colour: its strongest channel.
    var strength: Double { Double(max(red, green, blue)) / 255 }

    package var description: String {
        if let (name, _) = Self.named.first(where: { $0.value == self }) { return name }
        let hex = (Int(red) << 16 | Int(green) << 8 | Int(blue))
        let digits = String(hex, radix: 16)
        return "#" + String(repeating: "0", count: 6 - digits.count) + digits
    }
}
