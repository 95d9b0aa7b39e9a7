import XCTest
@testable import SysoundAudio

final class SysoundAudioPlaceholderTests: XCTestCase {
    func testLinks() {}
}
