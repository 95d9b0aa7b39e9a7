import Foundation
import SysoundTestSupport
import XCTest

/// An idle daemon costs nothing: after its last sound and the idle pause it
/// arms no timer and polls nothing, so none of its threads is scheduled.
final class AtRestTests: DaemonTestCase {
    /// Context switches (voluntary and not) of each of `pid`'s threads, by thread id and name.
    static func contextSwitches(of pid: pid_t) -> [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var counts: [String: Int] = [:]
        for tid in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/status", encoding: .utf8) else { continue }
            var name = "", switches = 0
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    switches += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            counts["\(tid) \(name)"] = switches
        }
        return counts
    }

    func testAnIdleDaemonsThreadsSleepWithoutAWatchdog() throws {
        XCTAssertEqual(try daemon.cli.run(["play", "tap"]).status, 0)
        // The idle pause comes 1 s after the last sound (the shipped idle_pause_ms).
        XCTAssertTrue(eventually(5) { (try? self.daemon.cli.run(["status", "--json"]).stdout.contains("\"playing\": 0")) == true })
        sleep(2)
        let before = Self.contextSwitches(of: daemon.pid)
        sleep(5)
        let after = Self.contextSwitches(of: daemon.pid)
        let woke = after.filter { before[$0.key] != $0.value }.map { "\($0.key): +\($0.value - (before[$0.key] ?? 0))" }
        XCTAssertEqual(woke, [], "threads scheduled over 5 s of rest (of \(after.count))")
    }
}
