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
    }

    func testAListeningSocketAcceptsAndAMissingOneDoesNot() throws {
        let path = NSTemporaryDirectory() + "sysound-probe-\(getpid())"
        unlink(path)
        XCTAssertEqual(SoundServerProbe.serverAccepts { $0 == "PULSE_SERVER" ? "unix:" + path : nil }, false)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd); unlink(path) }
        let bound = UnixSocket.withAddress(path) { bind(fd, $0, $1) }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(SoundServerProbe.serverAccepts { $0 == "PULSE_SERVER" ? "unix:" + path : nil }, false, "bound, not listening")
        XCTAssertEqual(listen(fd, 4), 0)
        XCTAssertEqual(SoundServerProbe.serverAccepts { $0 == "PULSE_SERVER" ? "unix:" + path : nil }, true)
    }
}
