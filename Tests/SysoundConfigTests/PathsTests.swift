import Foundation
import XCTest
@testable import SysoundConfig

/// Paths as the file system has them: a sound or theme named through a
/// link is known by its target, as far as the path exists.
final class PathsTests: XCTestCase {
    func testStandardizeResolvesLinksAsFarAsThePathExists() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let real = Paths.standardize(dir)  // /tmp may itself be a link
        try FileManager.default.createDirectory(atPath: real + "/real/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: real + "/link", withDestinationPath: real + "/real/sub")
        FileManager.default.createFile(atPath: real + "/real/sub/tap.wav", contents: Data())

        XCTAssertEqual(Paths.standardize(real + "/link/tap.wav"), real + "/real/sub/tap.wav", "an existing file through a link")
        XCTAssertEqual(Paths.standardize(real + "/link/missing.wav"), real + "/real/sub/missing.wav", "the existing part resolved")
        XCTAssertEqual(Paths.standardize(real + "/link/../x/./y//z/"), real + "/real/x/y/z", "`..` after a link is the target's parent")
        XCTAssertEqual(Paths.standardize("/../a"), "/a")
        XCTAssertEqual(Paths.standardize("relative/../a"), "relative/../a", "a relative path is left as it is")
    }

    func testResolveExpandsTheHomeAndJoinsRelativePaths() {
        let env = ["HOME": "/nonexistent-home"]
        XCTAssertEqual(Paths.resolve("~/sounds/a.wav", relativeTo: "/x", environment: env), "/nonexistent-home/sounds/a.wav")
        XCTAssertEqual(Paths.resolve("a.wav", relativeTo: "/nonexistent-base/", environment: env), "/nonexistent-base/a.wav")
        XCTAssertEqual(Paths.resolve("/abs/./b.wav", relativeTo: "/x", environment: env), "/abs/b.wav")
    }

    func testDirectoryOfAPath() {
        XCTAssertEqual(Paths.directory(of: "/a/b/c.toml"), "/a/b")
        XCTAssertEqual(Paths.directory(of: "/a/b/"), "/a")
        XCTAssertEqual(Paths.directory(of: "/a"), "/")
        XCTAssertEqual(Paths.directory(of: "a"), "")
    }
}
