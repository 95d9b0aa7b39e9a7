import Foundation
import SysoundTestSupport
import XCTest

/// The process runner every daemon and CLI test relies on: output, input,
/// exit status, and the timeout that turns a hang into a failure.
final class SpawnedTests: XCTestCase {
    func testOutputAndExitStatusAreCollected() throws {
        let r = try Spawned.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        XCTAssertEqual(r.status, 3)
        XCTAssertEqual(r.stdout, "out\n")
        XCTAssertEqual(r.stderr, "err\n")
        XCTAssertFalse(r.timedOut)
    }

    func testInputIsWrittenAndOtherwiseStandardInputIsEmpty() throws {
        XCTAssertEqual(try Spawned.run("/bin/cat", [], input: Data("abc".utf8)).stdout, "abc")
        // Without input, /dev/null: cat ends at once instead of waiting on the test's stdin.
        XCTAssertEqual(try Spawned.run("/bin/cat", [], timeout: 5).stdout, "")
    }

    func testAChildThatOutlivesItsTimeoutIsTerminated() throws {
        let start = Date()
        let r = try Spawned.run("/bin/sleep", ["30"], timeout: 0.3)
        XCTAssertTrue(r.timedOut)
        XCTAssertEqual(r.status, 128 + SIGTERM)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testAMissingProgramIsAnErrorNamingIt() {
        XCTAssertThrowsError(try Spawned.run("/nonexistent/tool", [])) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/tool"), "\(error)")
        }
    }
}
