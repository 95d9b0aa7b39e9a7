import Foundation
import Glibc
import XCTest
@testable import SysoundAudio
import SysoundCore

final class SoundServerProbeTests: XCTestCase {
    private func paths(_ environment: [String: String]) -> [String]? {
        SoundServerProbe.socketPaths { environment[$0] }
    }

    func testTheSocketIsFoundWhereLibpulseLooks() {
        XCTAssertEqual(paths(["PULSE_SERVER": "unix:/run/a/native /run/b/native", "XDG_RUNTIME_DIR": "/run/x"]), ["/run/a/native", "/run/b/native"])
        XCTAssertEqual(paths(["PULSE_RUNTIME_PATH": "/run/p", "XDG_RUNTIME_DIR": "/run/x"]), ["/run/p/native"])
        XCTAssertEqual(paths(["XDG_RUNTIME_DIR": "/run/user/1000"]), ["/run/user/1000/pulse/native"])
        XCTAssertEqual(paths(["ALSOFT_DRIVERS": "pulse,alsa", "XDG_RUNTIME_DIR": "/run/x"]), ["/run/x/pulse/native"])
    }

    func testWhatCannotBeToldIsLeftToOpenAL() {
        XCTAssertNil(paths(["PULSE_SERVER": "tcp:localhost:4713"]))
        XCTAssertNil(paths(["PULSE_SERVER": "unix:/run/a/native tcp:host"]))
        XCTAssertNil(paths(["ALSOFT_DRIVERS": "alsa", "XDG_RUNTIME_DIR": "/run/x"]))
        XCTAssertNil(paths([:]))
        XCTAssertEqual(SoundServerProbe.ask { ["PULSE_SERVER": "tcp:localhost:4713"][$0] }, .unknown, "and asked of nobody")
    }

    private func ask(_ path: String) -> SoundServerProbe.Answer {
        SoundServerProbe.ask(deadlineMs: 200) { $0 == "PULSE_SERVER" ? "unix:" + path : nil }
    }

    /// A server that accepts and never answers (stopped, hung) is told from
    /// one that answers: libpulse would wait 30 s for it and OpenAL Soft lose
    /// its PulseAudio backend for good.
    func testASocketThatAcceptsAndNeverAnswersIsSilent() throws {
        let path = NSTemporaryDirectory() + "sysound-probe-\(getpid())"
        unlink(path)
        XCTAssertEqual(ask(path), .absent)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd); unlink(path) }
        XCTAssertEqual(UnixSocket.withAddress(path) { bind(fd, $0, $1) }, 0)
        XCTAssertEqual(ask(path), .absent, "bound, not listening")
        XCTAssertEqual(listen(fd, 4), 0)
        XCTAssertEqual(ask(path), .silent, "listening, nobody accepts (a stopped server)")
        // Accepted and read, never answered (a server hung in its main
        // loop); then accepted and closed without a reply (one dying: the
        // hung one killed while OpenAL would be trying).
        let closeAtOnce = Locked(false)
        let server = Thread {
            while true {
                let c = accept(fd, nil, nil)
                guard c >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 512)
                if !closeAtOnce.withLock({ $0 }) { while recv(c, &buffer, buffer.count, 0) > 0 {} }
                close(c)
            }
        }
        server.start()
        XCTAssertEqual(SoundServerProbe.firstReply(path, deadlineMs: 200), .silent, "accepted, never answered")
        closeAtOnce.withLock { $0 = true }
        XCTAssertEqual(SoundServerProbe.firstReply(path, deadlineMs: 2000), .closed)
        XCTAssertEqual(ask(path), .silent, "closed without a reply")
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// The AUTH packet is the one libpulse sends: the real server (the
    /// fixture's PulseAudio, or pipewire-pulse) authorizes it with our
    /// credentials and replies (command 2, REPLY; not 0, ERROR).
    func testTheRealServerRepliesToTheAuthPacket() throws {
        _ = try PulseFixture.require()
        let paths = try XCTUnwrap(SoundServerProbe.socketPaths())
        XCTAssertEqual(SoundServerProbe.firstReply(paths[0], deadlineMs: 2000), .replied(command: 2))
        XCTAssertEqual(SoundServerProbe.ask(), .answers)
    }
}
