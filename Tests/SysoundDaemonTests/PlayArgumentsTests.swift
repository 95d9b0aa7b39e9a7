import SysoundClient
import XCTest

/// The `play` shape `sysound` answers and hands to `sysound-play` (its argv
/// unchanged): both read it with `PlayArguments`, so what one hands over the other takes.
final class PlayArgumentsTests: XCTestCase {
    func parse(_ words: [String]) -> PlayArguments? { PlayArguments.parse(count: words.count) { words[$0] } }

    func testThePlayShape() throws {
        let play = try XCTUnwrap(parse(["play", "tap", "--app", "org.example.A", "--state-dir", "/run/x"]))
        XCTAssertEqual(play, PlayArguments(name: "tap", stateDirectory: "/run/x", app: "org.example.A"))
        XCTAssertEqual(parse(["play", "tap"]), PlayArguments(name: "tap"))
    }

    func testEveryOtherShapeIsTheFullCLIs() {
        for words in [
            [], ["play"], ["stop", "tap"], ["play", "--state-dir", "/x"], ["play", "tap", "--state-dir"],
            ["play", "tap", "--state-dir", "/a", "--state-dir", "/b"], ["play", "tap", "--app", "a", "--app", "b"],
            ["play", "tap", "--app", "bad\u{7}id"], ["play", "tap", "--app", ""], ["play", "tap", "--gain", "0.5"],
            ["play", "tap", "--state-dir", "/a", "--app", "org.example.A", "--x", "y"],
        ] {
            XCTAssertNil(parse(words), "\(words)")
        }
    }
}
