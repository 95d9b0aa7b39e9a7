import XCTest

final class SoundThemePlaceholderTests: XCTestCase {
    func testLinks() {}
}
