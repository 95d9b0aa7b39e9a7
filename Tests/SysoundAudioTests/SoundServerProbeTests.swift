import Foundation
import Glibc
import XCTest
@testable import SysoundAudio

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
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(SoundServerProbe.serverAccepts { $0 == "PULSE_SERVER" ? "unix:" + path : nil }, false, "bound, not listening")
        XCTAssertEqual(listen(fd, 4), 0)
        XCTAssertEqual(SoundServerProbe.serverAccepts { $0 == "PULSE_SERVER" ? "unix:" + path : nil }, true)
    }
}
