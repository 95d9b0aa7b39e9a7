import Foundation
import SysoundPlatform
import SysoundTestSupport
import XCTest

/// A daemon in a cpu cgroup that gives real-time tasks no time (a container
/// or a service given its own cpu group on cgroup v1, where a new group
/// starts at cpu.rt_runtime_us = 0): even as root neither way to real-time
/// works; the log names the group and the file, and the daemon plays.
final class RealtimeBudgetTests: XCTestCase {
    var daemon: DaemonProcess?
    var group: String?

    override func tearDown() {
        _ = daemon?.stop()
        if let group { rmdir(group) }
        super.tearDown()
    }

    func testADaemonInAGroupWithoutRealtimeTimeNamesItAndPlays() throws {
        try Pulse.require()
        guard getuid() == 0 else { throw XCTSkip("making a cpu cgroup needs root, as CI has") }
        guard let own = CgroupRealtimeBudget.current() else {
            throw XCTSkip("no cpu.rt_runtime_us here (cgroup v2 or no real-time group scheduling): no such group to be in")
        }
        // A child of this test's own cpu group: inside whatever limits the run has.
        let parent = (own.file as NSString).deletingLastPathComponent
        let dir = parent + "/sysound-test-\(getpid())"
        guard mkdir(dir, 0o755) == 0 else { throw XCTSkip("cannot make a cpu cgroup under \(parent): \(String(cString: strerror(errno)))") }
        group = dir
        XCTAssertEqual(try String(contentsOfFile: dir + "/cpu.rt_runtime_us", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines), "0",
                       "a new group has no real-time time")
        let daemon = try DaemonProcess(cgroup: dir)
        self.daemon = daemon
        let name = String(own.cgroup.hasSuffix("/") ? own.cgroup.dropLast() : Substring(own.cgroup)) + "/sysound-test-\(getpid())"
        let log = daemon.log(tail: 1000)
        XCTAssertTrue(log.contains(
            "audio threads at normal priority, neither way to real-time worked (sched_setscheduler(SCHED_FIFO, 4): Operation not permitted "
            + "(cpu cgroup \(name) gives real-time no time: \(dir)/cpu.rt_runtime_us is 0)"), log)
        let recording = try MonitorRecording()
        XCTAssertEqual(try daemon.cli.run(["play", "tap"]).status, 0)
        XCTAssertNotNil(Signal.onset(try recording.samples(secondsFromNow: 0.3), threshold: 0.0631), "the tap reached the sink")
    }
}
