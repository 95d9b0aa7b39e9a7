import XCTest
@testable import SysoundServer

final class SysoundServerPlaceholderTests: XCTestCase {
    func testLinks() {}
}
