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
        try assertRests(daemon)
    }

    /// The same on OpenAL Soft's own device: paused, it is not watched (its
    /// loss comes from OpenAL Soft's event thread, asleep until then), and
    /// OpenAL Soft ends its mixer thread. Not
    /// counted: libpulse's mainloop inside OpenAL Soft's PulseAudio backend
    /// (`threaded-ml`), which OpenAL Soft runs and wakes (measured 8 times in
    /// 5 s on PulseAudio); it is not there on ALSA, where `auto` picks this output.
    func testAnIdleDaemonOnOpenALSoftsDeviceSleeps() throws {
        let openal = try DaemonProcess(config: "[audio]\noutput = \"openal\"\n")
        defer { XCTAssertEqual(openal.stop(), 0, openal.log(tail: 20)) }
        try assertRests(openal, notCounting: "threaded-ml")
    }

    func assertRests(_ daemon: DaemonProcess, notCounting foreign: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try daemon.cli.run(["play", "tap"]).status, 0, file: file, line: line)
        // The idle pause comes 1 s after the last sound (the shipped idle_pause_ms).
        XCTAssertTrue(eventually(5) { (try? daemon.cli.run(["status", "--json"]).stdout.contains("\"playing\": 0")) == true }, file: file, line: line)
        sleep(2)
        let before = Self.contextSwitches(of: daemon.pid)
        sleep(5)
        let after = Self.contextSwitches(of: daemon.pid)
        let others = after.filter { foreign != nil && $0.key.hasSuffix(" \(foreign!)") && before[$0.key] != $0.value }
        if !others.isEmpty { print("at rest: not counted, \(others.map { "\($0.key): +\($0.value - (before[$0.key] ?? 0))" })") }
        let woke = after.filter { before[$0.key] != $0.value && others[$0.key] == nil }.map { "\($0.key): +\($0.value - (before[$0.key] ?? 0))" }
        XCTAssertEqual(woke, [], "threads scheduled over 5 s of rest (of \(after.count))", file: file, line: line)
    }
}
