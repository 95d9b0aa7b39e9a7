import Foundation
import SysoundClient
import SysoundCore
import SysoundTestSupport
import XCTest

/// Who may use the daemon, what the state directory and socket look like,
/// and what another user's requests may make the daemon do. Needs root (to
/// act as `nobody` with setpriv), as CI runs.
final class AccessTests: XCTestCase {
    /// The group used as `socket_group`; `audio` exists on Debian.
    static let groupName = "audio"
    var groupID: gid_t { getgrnam(Self.groupName)!.pointee.gr_gid }

    override func setUpWithError() throws {
        try Pulse.require()
        guard getuid() == 0 else { throw XCTSkip("access tests act as another user with setpriv; run as root") }
        guard getgrnam(Self.groupName) != nil else { throw XCTSkip("no group \(Self.groupName)") }
    }

    func mode(_ path: String) -> (mode: mode_t, uid: uid_t, gid: gid_t) {
        var st = stat()
        XCTAssertEqual(lstat(path, &st), 0, path)
        return (st.st_mode & 0o7777, st.st_uid, st.st_gid)
    }

    func testPrivateByDefaultAndAnotherUserIsRefused() throws {
        let daemon = try DaemonProcess()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        XCTAssertEqual(mode(daemon.stateDir).mode, 0o700)
        XCTAssertEqual(mode(daemon.socketPath).mode, 0o600)
        let refused = try daemon.cli.run(["play", "tap"], as: .nobody)
        XCTAssertNotEqual(refused.status, 0, refused.output)
        // Loosen the directory and the socket as a careless admin might: the
        // daemon's own check (SO_PEERCRED) still refuses, and says why.
        chmod(daemon.stateDir, 0o711)
        chmod(daemon.socketPath, 0o666)
        let denied = try daemon.cli.run(["play", "tap"], as: .nobody)
        XCTAssertNotEqual(denied.status, 0, denied.output)
        XCTAssertTrue(denied.output.contains("uid 65534 may not use this daemon"), denied.output)
        XCTAssertTrue(daemon.isRunning)
    }

    func testTheSocketGroupIsLetInAndOthersAreNot() throws {
        let daemon = try DaemonProcess(config: Configs.theme(server: "socket_group = \"\(Self.groupName)\""))
        defer { XCTAssertEqual(daemon.stop(), 0) }
        XCTAssertEqual(mode(daemon.stateDir).mode, 0o710, "the state directory is not searchable by the group")
        XCTAssertEqual(mode(daemon.stateDir).gid, groupID)
        XCTAssertEqual(mode(daemon.socketPath).mode, 0o660)
        XCTAssertEqual(mode(daemon.socketPath).gid, groupID)
        // A member (supplementary group, read with SO_PEERGROUPS) plays.
        var result: Spawned.Result!
        let p = try Pulse.peak(0.5) { result = try daemon.cli.run(["play", "tap"], as: .nobody(inGroup: groupID)) }
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertGreaterThan(p, 0.05, "the group member's sound did not reach the sink")
        // A member by primary group too.
        let primary = try daemon.cli.run(["status"], as: User(gid: groupID))
        XCTAssertEqual(primary.status, 0, primary.output)
        // Not a member: refused.
        XCTAssertNotEqual(try daemon.cli.run(["play", "tap"], as: .nobody).status, 0)
    }

    func testAnotherUsersPlayFileStaysInsideTheSoundDirectories() throws {
        let daemon = try DaemonProcess(config: Configs.theme("@ROOT@/theme", server: "socket_group = \"\(Self.groupName)\""), start: false)
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let theme = daemon.root + "/theme"
        try HostileFiles.write(into: theme)
        try "[sounds.good]\nfile = \"good.wav\"\n".write(toFile: theme + "/index.toml", atomically: true, encoding: .utf8)
        // A private file outside the theme, a link from inside the theme to it, and a `..` escape.
        let secret = daemon.root + "/secret.wav"
        try FileManager.default.copyItem(atPath: theme + "/good.wav", toPath: secret)
        chmod(secret, 0o600)
        try FileManager.default.createSymbolicLink(atPath: theme + "/link.wav", withDestinationPath: secret)
        try daemon.start()
        let member = User.nobody(inGroup: groupID)
        for path in [secret, theme + "/link.wav", theme + "/../secret.wav", "/etc/passwd"] {
            let r = try daemon.cli.run(["play", "--file", path], as: member)
            XCTAssertNotEqual(r.status, 0, "\(path) was played for another user: \(r.output)")
            XCTAssertTrue(r.output.contains(path), "the refusal does not name \(path): \(r.output)")
        }
        XCTAssertTrue(try daemon.cli.run(["play", "--file", secret], as: member).output.contains("outside the sound directories"))
        // Inside the theme: plays. The daemon's own user: anything.
        XCTAssertEqual(try daemon.cli.run(["play", "--file", theme + "/good.wav"], as: member).status, 0)
        XCTAssertEqual(try daemon.cli.run(["play", "--file", secret]).status, 0)
    }

    func testOthersMayPlayAnyFileWhenTheConfigSaysSo() throws {
        let daemon = try DaemonProcess(config: Configs.theme(
            server: "socket_group = \"\(Self.groupName)\"\nothers_may_play_any_file = true"), start: false)
        defer { XCTAssertEqual(daemon.stop(), 0) }
        try HostileFiles.write(into: daemon.root + "/elsewhere")
        try daemon.start()
        let member = User.nobody(inGroup: groupID)
        let r = try daemon.cli.run(["play", "--file", daemon.root + "/elsewhere/good.wav"], as: member)
        XCTAssertEqual(r.status, 0, r.output)
        // Still never a FIFO or a device.
        let fifo = try daemon.cli.run(["play", "--file", daemon.root + "/elsewhere/fifo.wav"], as: member)
        XCTAssertNotEqual(fifo.status, 0, fifo.output)
        XCTAssertTrue(fifo.output.contains("not a regular"), fifo.output)
    }

    func testAStateDirectoryWritableByOthersIsRefusedAtStart() throws {
        let daemon = try DaemonProcess(start: false)
        defer { daemon.stop() }
        XCTAssertEqual(mkdir(daemon.stateDir, 0o777), 0)
        chmod(daemon.stateDir, 0o777)
        chown(daemon.stateDir, 65534, 65534)
        XCTAssertThrowsError(try daemon.start()) { error in
            XCTAssertTrue("\(error)".contains("writable by other users"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.socketPath), "a socket was made in the unsafe directory")
    }

    /// No request, however malformed, makes the daemon create a file: after
    /// every fuzzing seed and a few hundred mutations of each, the state
    /// directory holds only control files, and no file appeared elsewhere
    /// under the fixture's directory.
    func testNoRequestWritesAFile() throws {
        let daemon = try DaemonProcess()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let before = Set(try FileManager.default.subpathsOfDirectory(atPath: daemon.root)).subtracting(["daemon.log"])
        let seeds = try FileManager.default.contentsOfDirectory(atPath: TestPaths.packageRoot + "/Tests/fuzz/corpus/WireRequest")
            .compactMap { FileManager.default.contents(atPath: TestPaths.packageRoot + "/Tests/fuzz/corpus/WireRequest/" + $0) }
            .map { Array($0) }
        XCTAssertGreaterThan(seeds.count, 10)
        var generator = SystemRandomNumberGenerator()
        let connection = try DaemonConnection(socketPath: daemon.socketPath, timeoutMilliseconds: 5000)
        var sent = 0
        let paths = ["../../x", "/tmp/sysound-written", daemon.root + "/new", "silent/../../x", "%2e%2e%2fx"]
        for seed in seeds {
            for i in 0..<200 {
                var bytes = seed
                if i > 0 {
                    let at = Int.random(in: 0..<max(1, bytes.count), using: &generator)
                    switch i % 3 {
                    case 0: bytes.insert(contentsOf: Array((" " + paths[i % paths.count]).utf8), at: min(at, bytes.count))
                    case 1: if !bytes.isEmpty { bytes[at] = UInt8.random(in: 0...255, using: &generator) }
                    default: bytes += Array(" file=\(paths[i % paths.count]) x=\(paths[(i + 1) % paths.count])".utf8)
                    }
                }
                _ = try connection.send(raw: bytes)
                sent += 1
            }
        }
        _ = try daemon.client.send(.stop(.all))
        XCTAssertTrue(daemon.isRunning)
        let after = Set(try FileManager.default.subpathsOfDirectory(atPath: daemon.root)).subtracting(["daemon.log"])
        let controls = Set(ControlFile.allCases.map { "state/" + $0.fileName })
        let created = after.subtracting(before).subtracting(controls)
        XCTAssertEqual(created, [], "requests created files: \(created)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/sysound-written"))
        XCTAssertGreaterThan(sent, 2000)
    }
}
