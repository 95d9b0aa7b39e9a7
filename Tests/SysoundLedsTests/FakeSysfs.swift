import Foundation
import SysoundLeds

/// A directory tree shaped like /sys/class/leds and /run/udev/data, in a
/// temporary directory: the real file calls (`SystemLedFiles`) run on it.
final class FakeSysfs {
    let root: String
    let paths: LedPaths

    init() throws {
        root = NSTemporaryDirectory() + "sysound-leds-" + UUID().uuidString
        paths = LedPaths(root: root)
        try FileManager.default.createDirectory(atPath: paths.classDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: paths.udevDatabase, withIntermediateDirectories: true)
    }

    deinit { remove() }

    /// Removes the tree (also at deinit; a test whose teardown block holds
    /// the tree removes it there: XCTest keeps a test's blocks, and what they
    /// hold, to the end of the run).
    func remove() { try? FileManager.default.removeItem(atPath: root) }

    /// An LED with the pattern trigger selected (`pattern` present) unless `pattern` is false.
    func addLed(_ name: String, max: Int = 255, pattern: Bool = true, triggers: String = "none [pattern] timer", multiIndex: String? = nil) throws {
        let dir = paths.led(name)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try "\(max)\n".write(toFile: dir + "/max_brightness", atomically: true, encoding: .utf8)
        try "0\n".write(toFile: dir + "/brightness", atomically: true, encoding: .utf8)
        try (pattern ? triggers : triggers.replacingOccurrences(of: "[pattern]", with: "pattern")).write(
            toFile: dir + "/trigger", atomically: true, encoding: .utf8)
        if pattern {
            try "".write(toFile: dir + "/pattern", atomically: true, encoding: .utf8)
            try "-1\n".write(toFile: dir + "/repeat", atomically: true, encoding: .utf8)
        }
        if let multiIndex {
            try "\(multiIndex)\n".write(toFile: dir + "/multi_index", atomically: true, encoding: .utf8)
            try "0 0 0\n".write(toFile: dir + "/multi_intensity", atomically: true, encoding: .utf8)
        }
    }

    /// udev's record of an LED, as udevd writes it.
    func udev(_ name: String, _ properties: [String: String]) throws {
        let text = properties.sorted { $0.key < $1.key }.map { "E:\($0.key)=\($0.value)\n" }.joined()
        try text.write(toFile: paths.udevRecord(name), atomically: true, encoding: .utf8)
    }

    func read(_ name: String, _ attribute: String) -> String {
        (try? String(contentsOfFile: paths.attribute(name, attribute), encoding: .utf8)) ?? "<missing>"
    }

    func remove(_ name: String) throws {
        try FileManager.default.removeItem(atPath: paths.led(name))
        try? FileManager.default.removeItem(atPath: paths.udevRecord(name))
    }
}
