import SysoundCore
import SysoundPlatform
import XCTest
@testable import SysoundHaptics

final class PresetsAndPinsTests: XCTestCase {
    func testBuiltInPresetsAreCompleteAndValid() throws {
        let required = ["light", "medium", "heavy", "soft", "rigid", "selection", "success", "warning", "error",
                        "tap", "alarm", PolicySettings.defaults.defaultAlertHaptic]
        for name in required { XCTAssertNotNil(HapticPresets.defaults[name], name) }
        for (name, p) in HapticPresets.defaults {
            XCTAssertNoThrow(try HapticsError.validate(p), name)
            // The text form round-trips, so config can spell every preset.
            XCTAssertEqual(try HapticPattern(parsing: p.description), p, name)
        }
        XCTAssertEqual(HapticPresets.defaults["success"]?.description, "0.7:25,0:60,1:35")
    }

    func testConfigPresetsOverrideAndExtend() {
        let merged = HapticPresets.merged(["tap": pattern("1:5"), "knock": pattern("1:10,0:10,1:10")])
        XCTAssertEqual(merged["tap"], pattern("1:5"))
        XCTAssertNotNil(merged["knock"])
        XCTAssertEqual(merged["heavy"], HapticPresets.defaults["heavy"])
    }

    func testPinText() {
        XCTAssertEqual(DevicePin("/dev/input/event3"), .path("/dev/input/event3"))
        XCTAssertEqual(DevicePin("*rumble*"), .name("*rumble*"))
        XCTAssertTrue(DevicePin("*Rumble*").matches(path: "/x", name: "Big Rumble Pad"))
        XCTAssertFalse(DevicePin("*Rumble*").matches(path: "/x", name: "keyboard"))
    }

    func testInotifyRecordsAreDecoded() {
        var bytes: [UInt8] = []
        func record(_ wd: Int32, _ mask: UInt32, _ name: String, padTo len: Int) {
            withUnsafeBytes(of: wd.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: mask.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt32(0)) { bytes += $0 }
            withUnsafeBytes(of: UInt32(len).littleEndian) { bytes += $0 }
            var n = Array(name.utf8)
            n += [UInt8](repeating: 0, count: len - n.count)
            bytes += n
        }
        record(1, 0x100, "event3", padTo: 16)
        record(1, 0x200, "event12", padTo: 16)
        record(2, 0x8000, "", padTo: 0)
        let events = bytes.withUnsafeBytes { InotifyEvent.parse($0) }
        XCTAssertEqual(events, [
            InotifyEvent(wd: 1, mask: 0x100, name: "event3"),
            InotifyEvent(wd: 1, mask: 0x200, name: "event12"),
            InotifyEvent(wd: 2, mask: 0x8000, name: ""),
        ])
        XCTAssertEqual(bytes.dropLast(4).withUnsafeBytes { InotifyEvent.parse($0) }.count, 2, "a cut record is not decoded")
        XCTAssertTrue(DirectoryWatcher.isEventNode("event0"))
        XCTAssertFalse(DirectoryWatcher.isEventNode("event"))
        XCTAssertFalse(DirectoryWatcher.isEventNode("mouse0"))
        XCTAssertFalse(DirectoryWatcher.isEventNode("eventX"))
    }
}
