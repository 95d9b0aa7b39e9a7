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

    /// A descriptor this process holds without CLOEXEC (as a sanitizer's
    /// symbolizer pipe is) does not reach the child: a background process the
    /// child leaves behind must not keep the test runner's pipes open.
    func testOnlyStandardDescriptorsAreInherited() throws {
        // A number ls's own directory descriptor cannot take by chance.
        let held: Int32 = 240
        XCTAssertEqual(dup2(2, held), held)  // dup2 leaves CLOEXEC off
        defer { close(held) }
        let listed = try Spawned.run("/bin/ls", ["/proc/self/fd"]).stdout.split(separator: "\n").compactMap { Int32($0) }
        XCTAssertFalse(listed.contains(held), "descriptor \(held) was inherited: \(listed)")
        XCTAssertTrue(Set([0, 1, 2]).isSubset(of: Set(listed)), "\(listed)")
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
