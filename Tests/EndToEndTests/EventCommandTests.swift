import Foundation
import SysoundCore
import SysoundTestSupport
import XCTest

/// `sysound event NAME` over the socket, on a daemon with no session bus at
/// all (a console, a container): the feedbackd theme's events start, say
/// what they played, end by themselves, by timeout, or by `--end`, heard
/// (or rightly not) at the PulseAudio fixture's null sink.
final class EventCommandTests: XCTestCase {
    var daemon: DaemonProcess!
    var directory = ""
    var cli: CLI { daemon.cli }

    static let theme = """
        {"name": "custom", "profiles": [
          {"name": "full", "feedbacks": [
            {"event-name": "message-new-instant", "type": "Sound", "effect": "bell"}]},
          {"name": "quiet", "feedbacks": [
            {"event-name": "org.example.held", "type": "Dummy", "duration": 10000},
            {"event-name": "org.example.beat", "type": "Dummy", "duration": 400}]}]}
        """

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Pulse.require()
        directory = NSTemporaryDirectory() + "sysound-event-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.theme.write(toFile: directory + "/custom.json", atomically: true, encoding: .utf8)
        // No session bus: the socket serves theme events all the same.
        daemon = try DaemonProcess(
            config: "[theme]\npaths = [\"@SOUNDS@\"]\n",
            environment: ["FEEDBACK_THEME": directory + "/custom.json", "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(directory)/no-bus"])
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, "sysound serve did not exit 0: \(daemon.log(tail: 20))") }
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    func testAnEventPlaysItsThemesSoundAndSaysSo() throws {
        XCTAssertTrue(daemon.log().contains("no session bus"), "the daemon found a session bus: \(daemon.log(tail: 20))")
        var result: Spawned.Result!
        let peak = try Pulse.peak(1.0) { result = try cli.run(["event", "message-new-instant", "--app", "org.example.Chat"]) }
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.stdout.contains("message-new-instant (event ") && result.stdout.contains("sound bell"), result.output)
        XCTAssertGreaterThan(peak, 0.05, "the event's sound was not heard")
        // Silent mode: the full section is not used; the event says why it played nothing.
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        let quiet = try Pulse.peak(0.6) { result = try cli.run(["event", "message-new-instant"]) }
        XCTAssertLessThan(quiet, 1e-4, "the event sounded in silent mode")
        XCTAssertEqual(result.status, 0, "nothing at the quiet level is the user's settings at work: \(result.output)")
        XCTAssertTrue(result.stdout.contains("nothing at the quiet level"), result.output)
    }

    func testAnEventRunsUntilEndedOrItsTimeout() throws {
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)  // the quiet section holds the dummies
        let held = try cli.run(["event", "org.example.held"])
        XCTAssertEqual(held.status, 0, held.output)
        XCTAssertTrue(held.stdout.contains("dummy 10000 ms"), held.output)
        let id = try XCTUnwrap(held.stdout.firstMatch(of: /\(event (\d+)\)/)?.1, held.output)
        let ended = try cli.run(["event", "--end", String(id)])
        XCTAssertEqual(ended.status, 0, ended.output)
        XCTAssertTrue(ended.stdout.contains("ended"), ended.output)
        // Ended, it is gone: ending it again is an unknown event.
        XCTAssertEqual(try cli.run(["event", "--end", String(id)]).status, 65)
        // Timeout 1 over 400 ms: it repeats, then ends expired with its last round.
        let start = Date()
        let looped = try cli.run(["event", "org.example.beat", "--timeout", "1", "--wait"])
        XCTAssertEqual(looped.status, 0, looped.output)
        XCTAssertTrue(looped.stdout.contains("ended (expired)"), looped.output)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 1.15, looped.output)
        let once = try cli.run(["event", "org.example.beat", "--wait"])
        XCTAssertTrue(once.stdout.contains("ended (natural)"), once.output)
    }

    func testBadInputGetsAClearMessageAndTheDaemonKeepsServing() throws {
        let unknown = try cli.run(["event", "org.example.no-such-event"])
        XCTAssertEqual(unknown.status, 65, unknown.output)
        XCTAssertTrue(unknown.stderr.contains("org.example.no-such-event"), unknown.output)
        for (arguments, words) in [
            (["event", "x", "--timeout", "0", "--wait"], "--wait"), (["event", "x", "--timeout", "-5"], "--timeout"),
            (["event"], "--end"), (["event", "x", "--end", "3"], "not both"), (["event", "x", "--app", ""], "--app"),
        ] {
            let result = try cli.run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.output)")
            XCTAssertTrue(result.stderr.contains(words), "\(arguments): \(result.output)")
        }
        XCTAssertEqual(try cli.run(["event", "--end", "4242"]).status, 65)
        XCTAssertEqual(try cli.run(["status"]).status, 0)
    }
}
