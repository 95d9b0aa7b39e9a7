import Foundation
import SysoundTestSupport
import XCTest

/// The daemon of a desktop's plain user, who may not set real-time
/// scheduling: it asks rtkit (Tests/fixture/rtkit-mock.py on the private
/// system bus, which applies rtkit's rules and calls sched_setscheduler as
/// rtkit does), and its audio threads run SCHED_RR; without rtkit it says why
/// and plays at normal priority.
final class PlainUserRealtimeTests: XCTestCase {
    var daemon: DaemonProcess?

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Pulse.require()
        try SessionMock.require()
        guard getuid() == 0 else { throw XCTSkip("running the daemon as another user (setpriv) needs root, as CI has") }
        // The user `nobody` must reach the fixture's sound server and system bus.
        let env = ProcessInfo.processInfo.environment
        for dir in [env["SYSOUND_FIXTURE_DIR"], env["PULSE_RUNTIME_PATH"], env["SYSOUND_DBUS_DIR"]].compactMap({ $0 }) {
            _ = try Spawned.run("/bin/chmod", ["-R", "a+rwX", dir])
        }
    }

    override func tearDown() {
        _ = daemon?.stop()
        try? SessionMock.stop(.rtkit)
        super.tearDown()
    }

    /// The daemon's threads with their scheduling policy (chrt's words).
    func policies(_ pid: pid_t) -> [String: String] {
        var found: [String: String] = [:]
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            guard let tid = pid_t(task) else { continue }
            let name = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            let p = sched_getscheduler(tid)
            found["\(task) \(name)"] = p < 0 ? "gone" : (p & ~0x4000_0000) == SCHED_RR ? "RR" : (p & ~0x4000_0000) == SCHED_FIFO ? "FIFO" : "other"
        }
        return found
    }

    func playsATap(_ daemon: DaemonProcess) throws {
        let recording = try MonitorRecording()
        XCTAssertEqual(try daemon.cli.run(["play", "tap"]).status, 0)
        let samples = try recording.samples(secondsFromNow: 0.3)
        XCTAssertNotNil(Signal.onset(samples, threshold: 0.0631), "the tap reached the sink")
    }

    func testAPlainUsersDaemonGetsRealtimeAudioThreadsThroughRtkit() throws {
        try RealtimeScheduling.require() // what rtkit (the mock, root here) may do for it
        try SessionMock.start(.rtkit)
        let daemon = try DaemonProcess(asPlainUser: true)
        self.daemon = daemon
        let log = daemon.log(tail: 1000)
        XCTAssertTrue(log.contains("audio threads real-time: SCHED_RR 4 through rtkit"), log)
        let threads = policies(daemon.pid)
        // The shipped output is the own stream: its one audio thread is libpulse's mainloop, named sysound-audio.
        XCTAssertEqual(threads.first(where: { $0.key.hasSuffix("sysound-audio") })?.value, "RR", "the stream's mainloop: \(threads)")
        XCTAssertEqual(threads.values.filter { $0 == "FIFO" }, [], "nothing set directly: the daemon may not")
        try playsATap(daemon)
    }

    func testWithoutRtkitAPlainUsersDaemonSaysWhyAndPlays() throws {
        let daemon = try DaemonProcess(asPlainUser: true)
        self.daemon = daemon
        let log = daemon.log(tail: 1000)
        // (After "permitted" a cpu cgroup without real-time time is named where that is the reason.)
        XCTAssertTrue(log.contains("audio threads at normal priority, neither way to real-time worked (sched_setscheduler(SCHED_FIFO, 4): Operation not permitted"), log)
        XCTAssertTrue(log.contains("; rtkit: "), log)
        XCTAssertEqual(policies(daemon.pid).values.filter { $0 != "other" && $0 != "gone" }, [])
        try playsATap(daemon)
    }
}
