/// A vibration motor's kind, which decides how short a pulse can be felt.
package enum MotorKind: String, Sendable, Equatable {
    /// Eccentric rotating mass: spins up and down slowly; 40–80 ms to be felt.
    case erm = "ERM"
    /// Linear resonant actuator: crisp; 7–15 ms pulses are felt.
    case lra = "LRA"
}

/// How one device's motor is tuned: the built-in presets were made for
/// linear actuators (tap 15 ms, selection 10 ms), which an eccentric-mass
/// motor does not even start to spin for.
package struct HapticProfile: Sendable, Equatable {
    /// The name `[haptics] profile` and `sysound status` use.
    package var name: String
    /// Device-tree compatible strings this profile is for (exact entries).
    package var compatible: [String]
    /// DMI product names (/sys/class/dmi/id/product_name) it is for.
    package var dmiProducts: [String]
    package var motor: MotorKind
    /// Every vibrating step shorter than this is lengthened to it.
    package var minimumPulseMs: Int
    /// Presets replaced on this device (those the configuration left at
    /// their built-in values).
    package var presets: [String: HapticPattern]
    /// Where the values come from.
    package var source: String

    /// The profiles sysound ships: only devices whose values public sources
    /// give. One table, so that each fact is written once.
    package static let shipped: [HapticProfile] = [
        // PINE64 PinePhone (1.0–1.2): gpio-vibra drives an eccentric-mass
        // motor on/off. feedbackd's device theme for it
        // (data/themes/pine64,pinephone.json in feedbackd 0.8) raises
        // key-pressed to an 80 ms rumble and key-released to 40 ms, because
        // its default theme's 7 ms pulses are not felt on that motor; 40 ms
        // is therefore the shortest pulse worth playing. The PinePhone Pro
        // ("pine64,pinephone-pro") is another board and not covered.
        HapticProfile(
            name: "pine64-pinephone", compatible: ["pine64,pinephone"], dmiProducts: [], motor: .erm, minimumPulseMs: 40,
            presets: [
                BuiltInHaptic.tap.rawValue: HapticPattern(steps: [HapticStep(magnitude: 0.6, durationMs: 80)]),
                BuiltInHaptic.selection.rawValue: HapticPattern(steps: [HapticStep(magnitude: 0.4, durationMs: 40)]),
            ],
            source: "feedbackd's PinePhone device theme (pine64,pinephone.json: key-pressed 80 ms, key-released 40 ms)"),
    ]

    /// The shipped profile named `name`.
    package static func named(_ name: String) -> HapticProfile? { shipped.first { $0.name == name } }

    /// `configured` (the configuration's presets) with this profile's
    /// presets in place of those still at their built-in values: a preset
    /// the user wrote stays theirs.
    package func presets(over configured: [String: HapticPattern]) -> [String: HapticPattern] {
        var result = configured
        for (name, pattern) in presets where configured[name] == nil || configured[name] == HapticPresets.defaults[name] {
            result[name] = pattern
        }
        return result
    }

    /// The profile for this machine: the first device-tree compatible entry
    /// (most specific first) a profile lists, else the DMI product name, else
    /// the configured name. Throws when the configured name is unknown.
    package static func choose(
        compatible: [String], dmiProduct: String?, configured: String?, among profiles: [HapticProfile] = shipped
    ) throws(ProfileError) -> ProfileChoice? {
        for entry in compatible {
            if let p = profiles.first(where: { $0.compatible.contains(entry) }) {
                return ProfileChoice(profile: p, reason: "device-tree compatible \"\(entry)\"")
            }
        }
        if let dmi = dmiProduct, let p = profiles.first(where: { $0.dmiProducts.contains(dmi) }) {
            return ProfileChoice(profile: p, reason: "DMI product name \"\(dmi)\"")
        }
        guard let name = configured else { return nil }
        guard let p = profiles.first(where: { $0.name == name }) else {
            throw ProfileError(name: name, known: profiles.map(\.name))
        }
        return ProfileChoice(profile: p, reason: "[haptics] profile")
    }
}

/// The profile in use and why it was chosen (`sysound status`).
package struct ProfileChoice: Sendable, Equatable, CustomStringConvertible {
    package var profile: HapticProfile
    package var reason: String
    package init(profile: HapticProfile, reason: String) {
        self.profile = profile
        self.reason = reason
    }
    package var description: String {
        "\(profile.name) (\(profile.motor.rawValue), pulses ≥ \(profile.minimumPulseMs) ms; chosen by \(reason))"
    }
}

/// A `[haptics] profile` that names no shipped profile.
package struct ProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    package var name: String
    package var known: [String]
    package init(name: String, known: [String]) {
        self.name = name
        self.known = known
    }
    package var description: String {
        "unknown haptic profile \"\(name)\"; known profiles: \(known.joined(separator: ", ")). "
            + "Set [haptics] profile to one of them, or remove it to use the built-in presets"
    }
}

/// What `[haptics] devices` may hold, checked in one place for the
/// configuration parser and the engine.
package enum HapticDeviceEntries {
    /// Why `entries` cannot be used, naming the entry and what to write instead; nil when fine.
    package static func problem(_ entries: [String]) -> (entry: String, why: String)? {
        if entries.contains("all") && entries.count > 1 {
            return ("all", "\"all\" already takes every device; give it alone or list devices instead")
        }
        for entry in entries {
            if entry.allSatisfy(\.isWhitespace) {
                return (entry, "an empty entry chooses nothing; give a device path (/dev/input/event3), a name or pattern (\"gpio-vibrator\", \"*vibra*\"), or \"all\"")
            }
            if entry.hasPrefix("/") && !entry.hasPrefix("/dev/") {
                return (entry, "a path must name a device node under /dev (e.g. /dev/input/event3 or /dev/input/by-path/…)")
            }
        }
        return nil
    }
}
