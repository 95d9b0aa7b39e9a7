import Foundation
import SysoundClient
import SysoundTestSupport
import XCTest

/// `sysound serve` started the way systemd starts it, with JOURNAL_STREAM
/// naming its standard error: every log line has a journal priority and no
/// timestamp of its own (journald adds one).
final class JournalStreamTests: XCTestCase {
    func testUnderJournaldTheDaemonsLinesCarryPrioritiesAndNoTimestamps() throws {
        guard access("/run/systemd/journal/socket", F_OK) != 0 else {
            throw XCTSkip("a journal runs here: the daemon logs to it natively, not to the stream")
        }
        // As systemd does: the device and inode of the pipe that is the
        // shell's (and so the daemon's) standard error.
        let journalStream = "$(stat -L -c %d:%i /proc/self/fd/2)"
        var second: Spawned.Result?
        let output = try serveOnce(journalStream: journalStream) { stateDir in
            second = try Spawned.run("/bin/sh", ["-c", Self.script(journalStream), try TestPaths.sysound, "serve", "--state-dir", stateDir])
        }
        // An error printed rather than logged (a second daemon on the same
        // directory) carries the error priority too.
        XCTAssertNotEqual(second?.status, 0)
        XCTAssertTrue(second?.stderr.hasPrefix("<3>sysound serve: another sysound daemon") ?? false, second?.stderr ?? "")
        let lines = output.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("<6>") && $0.contains("serving") }, "no info line with its priority:\n\(output)")
        for line in lines where line.first == "<" {
            XCTAssertNotNil(line.wholeMatch(of: /<[2-7]>[^<].*/), "not a prefixed line: \(line)")
            XCTAssertNil(line.firstMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/), "a timestamp journald would double: \(line)")
        }
        // swift-log's stream format (timestamp, level word) must not appear at all.
        XCTAssertFalse(lines.contains { $0.firstMatch(of: /^\d{4}-\d{2}-\d{2}T/) != nil }, output)
    }

    /// A JOURNAL_STREAM inherited by a process whose output went elsewhere is
    /// not the journal's: the usual stream format stays.
    func testAStaleJournalStreamKeepsTheUsualFormat() throws {
        let output = try serveOnce(journalStream: "1:1")
        let lines = output.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.firstMatch(of: /^\d{4}-\d{2}-\d{2}T.* info .*serving/) != nil }, output)
        XCTAssertFalse(lines.contains { $0.hasPrefix("<") }, output)
    }

    /// Runs `sysound serve` with JOURNAL_STREAM set by the shell to
    /// `journalStream` (shell words), waits until it answers, stops it and
    /// returns its standard error.
    func serveOnce(journalStream: String, whileServing: (String) throws -> Void = { _ in }) throws -> String {
        let root = NSTemporaryDirectory() + "sysound-journal-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let stateDir = root + "/state"
        let daemon = try Spawned(
            "/bin/sh", ["-c", Self.script(journalStream), try TestPaths.sysound, "serve", "--state-dir", stateDir, "--input-dir", root + "/no-input"])
        let client = DaemonClient(stateDirectory: stateDir, timeoutMilliseconds: 2000)
        let deadline = Date().addingTimeInterval(15)
        while (try? client.send(.ping))?.isOK != true, daemon.isRunning, Date() < deadline { usleep(20_000) }
        let answered = (try? client.send(.ping))?.isOK == true
        if answered { try whileServing(stateDir) }
        daemon.signal(SIGTERM)
        let status = daemon.wait(timeout: 10, then: SIGKILL)
        XCTAssertTrue(answered, "the daemon never answered: \(daemon.stderr)")
        XCTAssertEqual(status, 0, daemon.stderr)
        return daemon.stderr
    }

    /// A shell script that runs its arguments with JOURNAL_STREAM set to `value` (shell words).
    static func script(_ value: String) -> String { "JOURNAL_STREAM=\(value) exec \"$0\" \"$@\"" }
}
