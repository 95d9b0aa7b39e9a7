import XCTest
@testable import SysoundConfig

final class SysoundConfigPlaceholderTests: XCTestCase {
    func testLinks() {}
}
