import XCTest
@testable import SysoundHaptics

final class SysoundHapticsPlaceholderTests: XCTestCase {
    func testLinks() {}
}
