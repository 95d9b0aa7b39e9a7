import Foundation
import SysoundTestSupport
import XCTest

/// What only PipeWire (pipewire-pulse) decides, with the real daemon: the
/// latency its stream is given, and what the idle pause leaves of it in the
/// graph. Skipped on PulseAudio (Tests/fixture/with-pipewire.sh runs them).
final class PipeWireTests: DaemonTestCase {
    override func setUpWithError() throws {
        guard Pulse.server == .pipewire else { throw XCTSkip("PipeWire only (SYSOUND_SOUND_SERVER=\(Pulse.server))") }
        try super.setUpWithError()
    }

    func stream() -> Pulse.PipeWireStream? { try? Pulse.pipewireStream(of: daemon.pid) }

    /// The shipped drop-in (config/pipewire-pulse.conf.d, which the fixture
    /// installs as `make install` does) lowers pipewire-pulse's floors for
    /// sysound's client from 256 frames (1024 in a VM) to 128: the stream's
    /// 96 × 4 frames (`tlength` 384, `minreq` 96, ADJUST_LATENCY) get
    /// `minreq` 128, a 128-frame quantum and a 320-frame buffer. At a
    /// 64-frame floor (96/48000, a 64-frame graph) clips broke under two busy
    /// processes; docs/latency.md, "On PipeWire". The shipped `output = "auto"` makes
    /// that stream sysound's own (media.name "sysound"), carrying the client
    /// mark the drop-in matches.
    func testTheDaemonsStreamGetsTheLatencyItAsksFor() throws {
        XCTAssertTrue(eventually(3) { self.stream() != nil }, "no stream of the daemon (pid \(daemon.pid)) in pw-dump")
        let props = try XCTUnwrap(stream()?.props)
        XCTAssertEqual(props["media.name"] as? String, "sysound", "the shipped output is sysound's own stream")
        XCTAssertEqual(props["sysound.engine"] as? String, "openal-soft", "the client mark the drop-in matches")
        XCTAssertEqual(props["node.latency"] as? String, "\(Pulse.requestFloorFrames)/48000", "the quantum: the drop-in's floor")
        XCTAssertEqual(props["pulse.attr.tlength"] as? Int, 320 * 8, "the buffer, in bytes of stereo float32")
    }

    /// The daemon's stream is made corked, and after a sound's idle time (1 s
    /// in the shipped config) it is corked again: either way its node is out
    /// of the graph (state suspended before any sound, idle after one:
    /// PipeWire schedules neither); a tap resumes it and is heard.
    func testTheIdleDaemonsNodeLeavesTheGraphAndTheNextTapIsHeard() throws {
        XCTAssertTrue(eventually(3) { self.stream() != nil }, "no stream of the daemon (pid \(daemon.pid)) in pw-dump")
        XCTAssertTrue(eventually(4) { ["idle", "suspended"].contains(self.stream()?.state) }, "before any sound the node is \(stream()?.state ?? "gone")")
        for _ in 0..<2 {
            let peak = try Pulse.peak(0.5) { XCTAssertEqual(try daemon.cli.run(["play", "tap"]).status, 0) }
            XCTAssertGreaterThan(peak, 0.05, "the tap reached the sink")
            XCTAssertTrue(eventually(3) { self.stream()?.state == "idle" }, "paused again after the tap: \(stream()?.state ?? "gone")")
        }
    }
}
