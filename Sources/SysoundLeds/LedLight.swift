/// One light the daemon can show something on: a multicolor LED, three
/// single-colour LEDs of one device used together as one RGB light, or a
/// single LED. Found by `LedDiscovery`; driven by `LedEngine`.
package struct LedLight: Sendable, Equatable {
    /// What the light can show, most capable first (feedbackd's order).
    package enum Kind: String, Sendable, Comparable {
        case multicolor, rgb, single

        var rank: Int { self == .multicolor ? 0 : self == .rgb ? 1 : 2 }
        package static func < (a: Kind, b: Kind) -> Bool { a.rank < b.rank }
    }

    /// What the LED is for, from its name (`*:status`, `*:indicator`; `*:flash`,
    /// `*:torch`): a notification light, or the camera's flash.
    package enum Role: String, Sendable {
        case status, flash
    }

    /// One LED class device the light writes to.
    package struct Channel: Sendable, Equatable {
        /// Its name under /sys/class/leds.
        package var name: String
        /// Its colour (a single LED): from udev or its name; nil when unknown.
        package var color: String?
        package var maxBrightness: Int
        /// A multicolor LED's channels (`multi_index`), in order.
        package var multiIndex: [String]
    }

    /// The light's name for people: the LED's name, or the RGB group's device part.
    package var name: String
    package var kind: Kind
    package var role: Role
    /// single: one; rgb: red, green, blue; multicolor: one, with its `multiIndex`.
    package var channels: [Channel]
    /// Why it is used: udev's word, its name, the configuration.
    package var why: String

    /// The colours it can show, for `status`.
    package var colors: [String] {
        switch kind {
        case .multicolor: channels.first?.multiIndex ?? []
        case .rgb: channels.compactMap(\.color)
        case .single: [channels.first?.color ?? "one colour"]
        }
    }

    /// The LED class names it writes to.
    package var ledNames: [String] { channels.map(\.name) }
}

/// An LED class device that is not used, and why: shown by `status` so that
/// a person can see what the daemon found.
package struct SkippedLed: Sendable, Equatable {
    package var name: String
    package var why: String

    package init(name: String, why: String) {
        self.name = name
        self.why = why
    }
}
