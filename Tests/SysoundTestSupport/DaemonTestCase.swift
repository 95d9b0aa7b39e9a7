#if canImport(XCTest)
import XCTest

/// A test case with a fresh `sysound serve` per test, on the PulseAudio
/// fixture (skipped or failed without it, as `Pulse.require()` says), that
/// must exit 0 on SIGTERM after the test.
open class DaemonTestCase: XCTestCase {
    package var daemon: DaemonProcess!

    open override func setUpWithError() throws {
        try super.setUpWithError()
        try Pulse.require()
        daemon = try DaemonProcess()
    }

    open override func tearDown() {
        // Nothing to stop when setUp skipped the test.
        if let daemon {
            XCTAssertEqual(daemon.stop(), 0, "sysound serve did not exit 0 on SIGTERM: \(daemon.log(tail: 20))")
        }
        super.tearDown()
    }
}
#endif
