import Foundation
import SysoundClient
import SysoundCore
import SysoundTestSupport
import XCTest

/// Hostile sound files through the real daemon: each is refused with an error
/// that names the file and says what is wrong, quickly, the daemon stays up,
/// and every other sound still plays.
///
/// The daemon runs without CAP_DAC_OVERRIDE (setpriv) so that a mode-000
/// file is unreadable to it even as root.
final class HostileFileTests: XCTestCase {
    func testPlayFileRefusesEveryHostileFileByNameAndOthersStillPlay() throws {
        try Pulse.require()
        let daemon = try DaemonProcess(withoutFileOverride: true)
        defer { XCTAssertEqual(daemon.stop(), 0, "the daemon did not exit 0: \(daemon.log(tail: 20))") }
        let dir = daemon.root + "/hostile"
        try HostileFiles.write(into: dir)
        for c in HostileFiles.cases {
            let path = dir + "/" + c.name
            // The daemon's own reply, as any client gets it.
            let start = Date()
            let reply = try daemon.client.send(.play(PlayRequest(.file(path))))
            XCTAssertLessThan(Date().timeIntervalSince(start), 3, "\(c.name) took too long")
            guard case .error(let code, let message) = reply else {
                XCTFail("\(c.name) was accepted: \(reply)")
                continue
            }
            XCTAssertEqual(code, .badFile, "\(c.name): \(message)")
            XCTAssertTrue(message.contains(path), "\(c.name): the error does not name the file: \(message)")
            for word in c.says {
                XCTAssertTrue(message.lowercased().contains(word), "\(c.name): the error does not say \"\(word)\": \(message)")
            }
            // The CLI passes it on and fails.
            let cli = try daemon.cli.run(["play", "--file", path])
            XCTAssertNotEqual(cli.status, 0, "\(c.name): the CLI succeeded: \(cli.output)")
            XCTAssertTrue(cli.stderr.contains(path), "\(c.name): the CLI's error does not name the file: \(cli.stderr)")
            XCTAssertTrue(daemon.isRunning, "the daemon died on \(c.name): \(daemon.log(tail: 30))")
        }
        XCTAssertGreaterThan(try Pulse.peak(0.5) { XCTAssertEqual(try daemon.cli.run(["play", "tap"]).status, 0) }, 0.05,
                             "a theme sound no longer plays")
        XCTAssertGreaterThan(try Pulse.peak(0.5) { XCTAssertEqual(try daemon.cli.run(["play", "--file", dir + "/good.wav"]).status, 0) }, 0.01,
                             "a good file no longer plays")
    }

    func testHostileFilesInTheThemeAreReportedAndTheRestPlays() throws {
        try Pulse.require()
        let daemon = try DaemonProcess(config: Configs.theme("@ROOT@/theme"), start: false, withoutFileOverride: true)
        defer { XCTAssertEqual(daemon.stop(), 0, "the daemon did not exit 0: \(daemon.log(tail: 20))") }
        let dir = daemon.root + "/theme"
        try HostileFiles.write(into: dir)
        try HostileFiles.index.write(toFile: dir + "/index.toml", atomically: true, encoding: .utf8)
        let start = Date()
        try daemon.start()  // a FIFO or /dev/zero in the theme must not hang the start
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        // The theme loads on a worker once the daemon serves; its report ends with this line.
        XCTAssertTrue(eventually(10) { daemon.log().contains("preloaded ") }, "the theme's load ended: \(daemon.log(tail: 20))")
        for c in HostileFiles.cases {
            let name = c.name.replacingOccurrences(of: ".wav", with: "")
            let path = dir + "/" + c.name
            // The theme load's report names the file, or the sound whose file
            // it is (the theme resolves the /dev/zero link and names its target).
            XCTAssertTrue(daemon.log().contains(path) || daemon.log().contains("the theme's sound \"\(name)\""),
                          "the daemon's log does not name \(path): \(daemon.log(tail: 40))")
            let reply = try daemon.client.send(.play(PlayRequest(.name(name))))
            guard case .error(_, let message) = reply else {
                XCTFail("\(name) played: \(reply)")
                continue
            }
            XCTAssertTrue(message.contains(c.name) || (c.name == "dev-zero.wav" && message.contains("/dev/zero")),
                          "\(name): the error does not name the file: \(message)")
            XCTAssertTrue(daemon.isRunning, "the daemon died on \(name): \(daemon.log(tail: 30))")
        }
        XCTAssertGreaterThan(try Pulse.peak(0.5) { XCTAssertTrue(try daemon.client.send(.play(PlayRequest(.name("good")))).isOK) }, 0.01,
                             "the good sound of the same theme does not play")
        XCTAssertGreaterThan(try Pulse.peak(0.5) { XCTAssertTrue(try daemon.client.send(.play(PlayRequest(.name("tap")))).isOK) }, 0.05,
                             "the shipped theme's tap does not play")
    }
}
