import Foundation
import SysoundCore
import SysoundTestSupport
import XCTest

/// Sandboxed apps on the D-Bus face, arranged as `flatpak run` arranges them
/// (Tests/fixture/flatpak-run.sh: the app in bubblewrap with its
/// /.flatpak-info and /app, Flatpak's instance directory, xdg-dbus-proxy in
/// a bwrap of its own filtering the private session bus), heard (or rightly
/// not) at the PulseAudio fixture's sink. The id an app claims is the one
/// its caller writes; the id that decides is the one its sandbox proves.
final class SandboxedAppTests: XCTestCase {
    var daemon: DaemonProcess!
    var cli: CLI { daemon.cli }
    /// The test's files: the daemon's XDG_RUNTIME_DIR (Flatpak's instance
    /// directories), each app's /app, a host-only sound.
    var root: String!
    var runtime: String { root + "/runtime" }
    var hostOnlySound: String { root + "/host-only.wav" }
    private var nextInstance = 1000

    static let config = """
        [theme]
        paths = ["@SOUNDS@"]
        [dbus]
        allow_important = ["org.example.Clock"]
        [apps."org.example.Muted"]
        profile = "silent"
        """

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Pulse.require()
        try SessionMock.require()
        for tool in ["bwrap", "xdg-dbus-proxy"] where (try? Spawned.run("/usr/bin/env", ["sh", "-c", "command -v \(tool)"]).status) != 0 {
            throw FixtureError("\(tool) is missing; install bubblewrap and xdg-dbus-proxy (make test does)")
        }
        root = NSTemporaryDirectory() + "sysound-sandbox-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: TestPaths.packageRoot + "/Sounds/success.wav", toPath: hostOnlySound)
        daemon = try DaemonProcess(config: Self.config, environment: ["XDG_RUNTIME_DIR": runtime])
        XCTAssertTrue(eventually(10) {
            (try? Spawned.run("/usr/bin/env", ["busctl", "--user", "status", "--no-pager", "org.sigxcpu.Feedback"]).status) == 0
        }, "the daemon never took org.sigxcpu.Feedback: \(daemon.log(tail: 20))")
    }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, "sysound serve did not exit 0: \(daemon.log(tail: 20))") }
        if let root { try? FileManager.default.removeItem(atPath: root) }
        super.tearDown()
    }

    /// Flatpak's info file for `app`, as flatpak-run writes it.
    func info(_ app: String, instance: Int) -> String {
        """
        [Application]
        name=\(app)
        runtime=runtime/org.example.Platform/x86_64/1

        [Instance]
        instance-id=\(instance)
        app-path=\(root!)/apps/\(app)
        runtime-path=/usr
        """
    }

    /// Runs `command` inside `app`'s sandbox, whose /app holds the test's
    /// clients (client.py: feedback-client.py; wire_client.py: socket-client.py)
    /// and its own sound, share/own.wav; `infoText` replaces its info file.
    /// The daemon's socket is at /run/sysound/socket inside.
    func sandboxed(_ app: String, infoText: String? = nil, _ command: [String]) throws -> Spawned.Result {
        nextInstance += 1
        let appDir = "\(root!)/apps/\(app)"
        try FileManager.default.createDirectory(atPath: appDir + "/share", withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: appDir + "/client.py") {
            let fixture = TestPaths.packageRoot + "/Tests/fixture/"
            try FileManager.default.copyItem(atPath: fixture + "feedback-client.py", toPath: appDir + "/client.py")
            try FileManager.default.copyItem(atPath: fixture + "socket-client.py", toPath: appDir + "/wire_client.py")
            try FileManager.default.copyItem(atPath: TestPaths.packageRoot + "/Sounds/success.wav", toPath: appDir + "/share/own.wav")
        }
        let infoPath = "\(root!)/info-\(nextInstance)"
        try (infoText ?? info(app, instance: nextInstance)).write(toFile: infoPath, atomically: true, encoding: .utf8)
        return try Spawned.run(
            "/usr/bin/env", ["FLATPAK_RUN_SOCKET=\(daemon.socketPath)", TestPaths.packageRoot + "/Tests/fixture/flatpak-run.sh",
                             infoPath, appDir, "\(nextInstance)", runtime] + command, timeout: 30)
    }

    /// feedback-client.py inside `app`'s sandbox: its key=value line.
    func inSandbox(_ app: String, infoText: String? = nil, _ arguments: [String]) throws -> [String: String] {
        let result = try sandboxed(app, infoText: infoText, ["python3", "/app/client.py"] + arguments)
        var fields: [String: String] = ["status": "\(result.status)"]
        for pair in result.stdout.split(whereSeparator: \.isWhitespace) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        if result.status != 0 { fields["output"] = result.output }
        return fields
    }

    /// One request on the daemon's socket from inside `app`'s sandbox: the reply line.
    func overSocket(_ app: String, _ request: String) throws -> String {
        let result = try sandboxed(app, ["python3", "/app/wire_client.py", "/run/sysound/socket"] + request.split(separator: " ").map(String.init))
        XCTAssertEqual(result.status, 0, result.output)
        let line = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return line.hasPrefix("sysound/1 ") ? String(line.dropFirst("sysound/1 ".count)) : line
    }

    func testSpoofedImportantIsNotHeardWhileTheRealAllowListedAppIs() throws {
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        var fields: [String: String] = [:]
        let spoofed = try Pulse.peak(1.0) {
            fields = try inSandbox("org.example.Notes", ["trigger", "org.example.Clock", "message-new-instant", "-1", #"{"important": true}"#])
        }
        XCTAssertEqual(fields["status"], "0", "the spoofed call is answered, as any other: \(fields)")
        XCTAssertLessThan(spoofed, 1e-4, "an app claiming the alarm clock's id pierced silent mode")
        XCTAssertTrue(daemon.log().contains("claims app id \"org.example.Clock\" but its sandbox proves flatpak org.example.Notes"), daemon.log(tail: 10))

        let real = try Pulse.peak(1.0) {
            fields = try inSandbox("org.example.Clock", ["trigger", "org.example.Clock", "message-new-instant", "-1", #"{"important": true}"#])
        }
        XCTAssertEqual(fields["reason"], "0", "\(fields)")
        XCTAssertGreaterThan(real, 0.05, "the real alarm clock, in its sandbox, was not heard in silent mode")
        // What the sandbox proved, in status: the verified ids, never the claim.
        let status = try cli.run(["status"]).stdout
        XCTAssertTrue(status.contains("org.example.Clock(flatpak):1"), status)
        XCTAssertTrue(status.contains("org.example.Notes(flatpak):1"), status)
    }

    func testPerAppSilentLevelHoldsAgainstASpoofedID() throws {
        var fields: [String: String] = [:]
        let spoofing = try Pulse.peak(1.0) {
            fields = try inSandbox("org.example.Muted", ["trigger", "org.example.Loud", "message-new-instant", "-1"])
        }
        XCTAssertEqual(fields["status"], "0", "\(fields)")
        XCTAssertLessThan(spoofing, 1e-4, "the app turned silent was heard by claiming another id")
        // The same call from an app nobody silenced is heard: the fixture plays.
        let other = try Pulse.peak(1.0) {
            fields = try inSandbox("org.example.Other", ["trigger", "org.example.Loud", "message-new-instant", "-1"])
        }
        XCTAssertGreaterThan(other, 0.05, "\(fields)")
    }

    func testSoundFileIsOpenedAsTheAppSeesIt() throws {
        // A file only the host has: refused, by name, with what to do; nothing plays.
        var fields: [String: String] = [:]
        let host = try Pulse.peak(0.8) {
            fields = try inSandbox("org.example.Notes", ["trigger", "org.example.Notes", "no-such-event", "-1", #"{"sound-file": "\#(hostOnlySound)"}"#])
        }
        XCTAssertEqual(fields["error"], "org.freedesktop.DBus.Error.AccessDenied", "\(fields)")
        XCTAssertTrue(fields["output"]?.contains(hostOnlySound) == true, "the error names the path: \(fields)")
        XCTAssertTrue(fields["output"]?.contains("type h") == true, "the error says what to do: \(fields)")
        XCTAssertLessThan(host, 1e-4, "a host-only file named by a sandboxed app was played")

        // A link in its /app to the host's file resolves inside the sandbox
        // (where there is no such file), and /proc's magic links are refused.
        try FileManager.default.createSymbolicLink(atPath: "\(root!)/apps/org.example.Notes/share/escape.wav", withDestinationPath: hostOnlySound)
        for path in ["/app/share/escape.wav", "/proc/self/root\(hostOnlySound)", "/proc/1/cwd/../../..\(hostOnlySound)"] {
            let escape = try Pulse.peak(0.8) {
                fields = try inSandbox("org.example.Notes", ["trigger", "org.example.Notes", "no-such-event", "-1", #"{"sound-file": "\#(path)"}"#])
            }
            XCTAssertEqual(fields["error"], "org.freedesktop.DBus.Error.AccessDenied", "\(path): \(fields)")
            XCTAssertLessThan(escape, 1e-4, "\(path) led out of the sandbox to the host's file")
        }

        // A file in its own /app (which the host and the bus proxy do not have): plays.
        let own = try Pulse.peak(1.0) {
            fields = try inSandbox("org.example.Notes", ["trigger", "org.example.Notes", "no-such-event", "-1", #"{"sound-file": "/app/share/own.wav"}"#])
        }
        XCTAssertEqual(fields["reason"], "0", "\(fields)")
        XCTAssertGreaterThan(own, 0.05, "the app's own file was not played")

        // Handed over open (type h), as the notification portal takes sounds: plays.
        let handed = try Pulse.peak(1.0) {
            fields = try inSandbox("org.example.Notes", ["trigger", "org.example.Notes", "no-such-event", "-1", #"{"sound-file": {"fd": "/app/share/own.wav"}}"#])
        }
        XCTAssertEqual(fields["reason"], "0", "\(fields)")
        XCTAssertGreaterThan(handed, 0.05, "the file handed over as a descriptor was not played")
    }

    func testMalformedInfoFileIsNotTheHost() throws {
        XCTAssertEqual(try cli.run(["silent", "on"]).status, 0)
        var fields: [String: String] = [:]
        let malformed = "[Application\nname=org.example.Clock\n"
        let peak = try Pulse.peak(1.0) {
            fields = try inSandbox(
                "org.example.Broken", infoText: malformed, ["trigger", "org.example.Clock", "message-new-instant", "-1", #"{"important": true}"#])
        }
        XCTAssertEqual(fields["status"], "0", "\(fields)")
        XCTAssertLessThan(peak, 1e-4, "a sandbox with a malformed info file was taken for the host and its claim believed")
        XCTAssertTrue(daemon.log().contains("sandboxed, unknown (malformed"), daemon.log(tail: 10))
        // Nor may it name a host file.
        fields = try inSandbox(
            "org.example.Broken", infoText: malformed, ["trigger", "org.example.Clock", "no-such-event", "-1", #"{"sound-file": "\#(hostOnlySound)"}"#])
        XCTAssertEqual(fields["error"], "org.freedesktop.DBus.Error.AccessDenied", "\(fields)")
        XCTAssertTrue(fields["output"]?.contains("only the sound directories") == true, "\(fields)")
        // The sound directories' files stay open to it, as to another user (they are the theme's).
        XCTAssertEqual(try cli.run(["silent", "off"]).status, 0)
        let themeFile = TestPaths.packageRoot + "/Sounds/success.wav"
        let theme = try Pulse.peak(1.0) {
            fields = try inSandbox(
                "org.example.Broken", infoText: malformed, ["trigger", "org.example.Clock", "no-such-event", "-1", #"{"sound-file": "\#(themeFile)"}"#])
        }
        XCTAssertEqual(fields["reason"], "0", "\(fields)")
        XCTAssertGreaterThan(theme, 0.05, "a file of the sound directories was not played for an unknown sandbox")
        XCTAssertTrue(try cli.run(["status"]).stdout.contains("unknown:"), "status lists the unknown sandbox")
    }

    func testSocketPeersAreProvedToo() throws {
        // SO_PEERPIDFD names the peer's process; its sandbox decides as on the bus.
        let spoofing = try Pulse.peak(1.0) { XCTAssertTrue(try overSocket("org.example.Muted", "play notification app=org.example.Loud").hasPrefix("ok")) }
        XCTAssertLessThan(spoofing, 1e-4, "the app turned silent was heard over the socket by claiming another id")
        var reply = ""
        let host = try Pulse.peak(0.8) { reply = try overSocket("org.example.Notes", "play file=\(hostOnlySound)") }
        XCTAssertTrue(reply.hasPrefix("error denied"), reply)
        XCTAssertTrue(reply.contains(hostOnlySound), reply)
        XCTAssertLessThan(host, 1e-4, "a host-only file named over the socket by a sandboxed app was played")
        let own = try Pulse.peak(1.0) { reply = try overSocket("org.example.Notes", "play file=/app/share/own.wav") }
        XCTAssertTrue(reply.hasPrefix("ok"), reply)
        XCTAssertGreaterThan(own, 0.05, "the app's own file was not played over the socket")
        XCTAssertTrue(try cli.run(["status"]).stdout.contains("org.example.Muted(flatpak):1"))
    }
}
