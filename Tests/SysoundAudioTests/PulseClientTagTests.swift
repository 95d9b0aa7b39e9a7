import Foundation
import XCTest
@testable import SysoundAudio

/// The mark the engine adds to PULSE_PROP for PipeWire's `pulse.rules`.
final class PulseClientTagTests: XCTestCase {
    func testTheMarkIsAddedAndTheUsersPropertiesKept() {
        XCTAssertEqual(PulseClientTag.merged(into: ""), "sysound.engine=openal-soft")
        XCTAssertEqual(PulseClientTag.merged(into: "  "), "sysound.engine=openal-soft")
        XCTAssertEqual(PulseClientTag.merged(into: "media.role='event sounds'"), "media.role='event sounds' sysound.engine=openal-soft")
        XCTAssertNil(PulseClientTag.merged(into: "a=b sysound.engine=mine"), "a user's own value stays")
    }

    /// The engine has set it by the time a device engine exists (the
    /// server-side effect is PulseDeviceTests.testOnPipeWireTheStreamGetsTheLatencyItAsksFor).
    func testAnEngineSetsItBeforeOpeningTheDevice() throws {
        let engine = try AudioEngine(output: .loopback)
        defer { engine.shutdown() }
        let value = try XCTUnwrap(ProcessInfo.processInfo.environment["PULSE_PROP"])
        XCTAssertTrue(value.contains("sysound.engine="), value)
    }
}
