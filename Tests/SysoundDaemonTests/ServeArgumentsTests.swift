import SysoundClient
import XCTest

/// The `serve` shape `sysound` hands to `sysound-engine`, which runs it
/// without its argument parser: both read it with `ServeArguments`. Every
/// other shape goes to the full CLI (help, its messages).
final class ServeArgumentsTests: XCTestCase {
    func parse(_ words: [String]) -> ServeArguments? { ServeArguments.parse(count: words.count) { words[$0] } }

    func testTheUnitsShapeInBothSpellings() throws {
        XCTAssertEqual(parse(["serve"]), ServeArguments())
        XCTAssertEqual(ServeArguments().inputDirectory, "/dev/input")
        XCTAssertEqual(
            parse(["serve", "--config", "/etc/s.toml", "-v", "--state-dir=/run/x", "--input-dir", "/tmp/in", "--verbose"]),
            ServeArguments(config: "/etc/s.toml", stateDirectory: "/run/x", inputDirectory: "/tmp/in"))
    }

    func testEveryOtherShapeIsTheFullCLIs() {
        for words in [
            [], ["play", "tap"], ["serve", "--help"], ["serve", "-h"], ["serve", "help"], ["serve", "--config"],
            ["serve", "--config", "--state-dir", "/x"], ["serve", "--config="], ["serve", "--config", "-"],
            ["serve", "--state-dir", "/a", "--state-dir=/b"], ["serve", "--log-level", "debug"], ["serve", "extra"],
        ] {
            XCTAssertNil(parse(words), "\(words)")
        }
    }
}
