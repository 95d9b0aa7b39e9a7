import XCTest
@testable import SysoundHaptics

/// What the real device layer says about nodes that are not force-feedback
/// devices; the rest of it runs against a kernel in Tests/kernel/run.sh.
final class EvdevDeviceTests: XCTestCase {
    func testMissingNodeIsGone() {
        XCTAssertThrowsError(try EvdevDevice.open(path: "/nonexistent/event0")) {
            XCTAssertEqual($0 as? DeviceError, .gone(path: "/nonexistent/event0"))
        }
    }

    func testNodeThatIsNotEvdevIsRefusedByName() {
        XCTAssertThrowsError(try EvdevDevice.open(path: "/dev/null")) {
            guard case .failed("/dev/null", "libevdev_new_from_fd", let e) = $0 as? DeviceError else {
                return XCTFail("\($0)")
            }
            XCTAssertEqual(e, 25, "ENOTTY: /dev/null answers no evdev ioctl")
            XCTAssertTrue("\($0)".contains("/dev/null"))
        }
    }

    func testErrnoClassification() {
        XCTAssertEqual(EvdevDevice.classify(19, path: "p", call: "c"), .gone(path: "p"))  // ENODEV
        XCTAssertEqual(EvdevDevice.classify(13, path: "p", call: "c"), .permissionDenied(path: "p"))  // EACCES
        XCTAssertEqual(EvdevDevice.classify(28, path: "p", call: "c"), .noSpace(path: "p"))  // ENOSPC
        XCTAssertEqual(EvdevDevice.classify(22, path: "p", call: "c"), .failed(path: "p", call: "c", errno: 22))
    }

    func testRumbleMagnitudes() {
        XCTAssertEqual(RumbleEffect(magnitude: 1, lengthMs: 20), RumbleEffect(strongMagnitude: 65535, weakMagnitude: 65535, lengthMs: 20))
        XCTAssertEqual(RumbleEffect(magnitude: 2, lengthMs: 70_000).lengthMs, 65535, "clamped, not trapped")
        XCTAssertEqual(RumbleEffect(magnitude: -1, lengthMs: 5).strongMagnitude, 0)
    }
}
