import XCTest
@testable import SysoundState

final class SysoundStatePlaceholderTests: XCTestCase {
    func testLinks() {}
}
