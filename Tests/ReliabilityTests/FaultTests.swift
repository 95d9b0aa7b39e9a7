import Foundation
import Glibc
import SysoundClient
import SysoundCore
import SysoundTestSupport
import XCTest

/// Faults around a running daemon: the sound server, the state directory, the
/// socket and the control files go away or turn into something else; the
/// daemon keeps serving without a restart. (A haptic device removed in the
/// middle of a pattern is covered by the real-kernel test, Tests/kernel/run.sh.)
final class FaultTests: DaemonTestCase {
    func playsNow(_ name: String = "tap") throws -> Bool {
        try Pulse.peak(0.4) { _ = try daemon.client.send(.play(PlayRequest(.name(name)))) } > 0.05
    }

    /// Starts the stopped server again and plays `tap` until it is heard, for at most 8 s.
    func startServerAndHear() throws -> Bool {
        try Pulse.control("start")
        let back = Date()
        while Date().timeIntervalSince(back) < 8 {
            if try playsNow() { return true }
        }
        return false
    }

    func testPulseAudioKilledAndRestartedWhileSoundsPlay() throws {
        XCTAssertTrue(try daemon.client.send(.play(PlayRequest(.name("ringtone"), loop: true))).isOK)
        XCTAssertTrue(try playsNow())
        try Pulse.control("stop")
        // While the server is away: requests are answered (an error or a
        // silent success), nothing hangs, the daemon stays up.
        for _ in 0..<5 {
            let start = Date()
            _ = try daemon.client.send(.play(PlayRequest(.name("tap"))))
            XCTAssertLessThan(Date().timeIntervalSince(start), 2.5)
            usleep(100_000)
        }
        XCTAssertTrue(daemon.isRunning)
        try Pulse.control("start")
        let back = Date()
        var recovered: Double?
        while Date().timeIntervalSince(back) < 6 {
            if try playsNow() { recovered = Date().timeIntervalSince(back); break }
        }
        guard let recovered else {
            return XCTFail("no sound within 6 s of PulseAudio's return: \(daemon.log(tail: 30))")
        }
        // Within 2 s of the return, counting the 0.4 s recording of the probe.
        XCTAssertLessThan(recovered, 2.4, "sound came back only after \(recovered) s")
        print("reliability: sound back \(String(format: "%.2f", recovered)) s after PulseAudio restarted")
        // The reopened device took every clip from its file again (no PCM is kept).
        XCTAssertFalse(daemon.log().contains("cannot upload"), daemon.log(tail: 30))
        _ = try daemon.client.send(.stop(.all))
    }

    /// A daemon started before its sound server answers every request at
    /// once (no device yet, said so), opens its device on a worker when the
    /// server comes, and plays without a restart. OpenAL Soft 1.19 tries the
    /// server once per process, so the daemon must not ask it before one runs.
    func testADaemonStartedBeforeTheServerPlaysWhenItComes() throws {
        XCTAssertEqual(daemon.stop(), 0)
        try Pulse.control("stop")
        var serverBack = false
        defer { if !serverBack { try? Pulse.control("start") } }
        daemon = try DaemonProcess()
        XCTAssertTrue(eventually(5) { self.daemon.log().contains("no sound server accepts connections yet") }, daemon.log(tail: 10))
        for _ in 0..<5 {
            let start = Date()
            let reply = try daemon.client.send(.play(PlayRequest(.name("tap"))))
            XCTAssertLessThan(Date().timeIntervalSince(start), 0.5, "a request waited for the audio device")
            guard case .error(let code, let message) = reply else { return XCTFail("a tap played with no server: \(reply)") }
            XCTAssertEqual(code, .noDevice)
            XCTAssertTrue(message.contains("no audio output is open yet"), message)
            usleep(200_000)
        }

        let heard = try startServerAndHear()
        serverBack = true
        XCTAssertTrue(heard, "no sound within 8 s of the server's start: \(daemon.log(tail: 20))")
        XCTAssertTrue(daemon.log().contains("audio output opened after"), daemon.log(tail: 20))
    }

    /// A daemon started while its server accepts connections and never
    /// answers (stopped, hung) starts at once, says so, and plays when a
    /// server answers there. OpenAL Soft 1.19 would have waited 30 s for that
    /// server and then lost PulseAudio for the life of the process.
    func testADaemonStartedWhileTheServerHangsPlaysWhenOneAnswers() throws {
        XCTAssertEqual(daemon.stop(), 0)
        try Pulse.control("stop")
        var serverBack = false
        defer { if !serverBack { try? Pulse.control("start") } }
        let server = try XCTUnwrap(ProcessInfo.processInfo.environment["PULSE_SERVER"])
        let path = String(server.dropFirst("unix:".count))
        unlink(path)
        let hung = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertEqual(UnixSocket.withAddress(path) { bind(hung, $0, $1) }, 0)
        XCTAssertEqual(listen(hung, 16), 0)
        // Gone before the server starts again, also when the test fails midway
        // (defers run last first): the server cannot bind over a listening socket.
        var hungOpen = true
        let closeHung = { if hungOpen { close(hung); unlink(path); hungOpen = false } }
        defer { closeHung() }
        let start = Date()
        daemon = try DaemonProcess()
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "start-up waited for the hung server")
        XCTAssertTrue(eventually(5) { self.daemon.log().contains("accepts connections but did not answer") }, daemon.log(tail: 10))
        let reply = try daemon.client.send(.play(PlayRequest(.name("tap"))))
        guard case .error(let code, _) = reply else { return XCTFail("a tap played with a hung server: \(reply)") }
        XCTAssertEqual(code, .noDevice)

        closeHung()
        let heard = try startServerAndHear()
        serverBack = true
        XCTAssertTrue(heard, "no sound within 8 s of a server answering: \(daemon.log(tail: 20))")
    }

    func testStateDirectoryRemovedAndRecreated() throws {
        let fm = FileManager.default
        // rm -r as a user would: the daemon may put its socket back while
        // the tree goes (it saw the socket deleted), and the directory's
        // rmdir then fails (ENOTEMPTY, which Foundation reports as EPERM);
        // try again until it is gone.
        var removal: Error?
        for _ in 0..<50 where fm.fileExists(atPath: daemon.stateDir) {
            do { try fm.removeItem(atPath: daemon.stateDir) } catch { removal = error; usleep(20_000) }
        }
        XCTAssertFalse(fm.fileExists(atPath: daemon.stateDir), "cannot remove the state directory: \(String(describing: removal))")
        try fm.createDirectory(atPath: daemon.stateDir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        // The socket comes back (or the daemon says in its log that it cannot).
        XCTAssertTrue(eventually(5) { (try? daemon.client.send(.ping))?.isOK == true },
                      "the socket did not come back: \(daemon.log(tail: 20))")
        // The instance lock too: a second daemon on this directory is still refused.
        XCTAssertTrue(eventually(5) { self.lockHeld(by: daemon.pid) },
                      "daemon.lock was not taken again: \(daemon.log(tail: 20))")
        // And the watches: a control file written by hand takes effect.
        try "1\n".write(toFile: daemon.stateDir + "/silent", atomically: false, encoding: .utf8)
        XCTAssertTrue(eventually(3) { self.stateValue("silent") == "1" },
                      "silent written into the new directory was not seen: \(daemon.log(tail: 20))")
        XCTAssertFalse(try playsNow(), "an ambient sound played in silent mode")
        try "0\n".write(toFile: daemon.stateDir + "/silent", atomically: false, encoding: .utf8)
        XCTAssertTrue(eventually(3) { self.stateValue("silent") == "0" })
        XCTAssertTrue(try playsNow())
    }

    /// Whether `daemon.lock` names `pid` and is flock-ed by someone (not us).
    func lockHeld(by pid: pid_t) -> Bool {
        let path = daemon.stateDir + "/daemon.lock"
        guard (try? String(contentsOfFile: path, encoding: .utf8)) == "\(pid)\n" else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    func testLockFileDeleted() throws {
        try FileManager.default.removeItem(atPath: daemon.stateDir + "/daemon.lock")
        XCTAssertTrue(eventually(5) { self.lockHeld(by: daemon.pid) },
                      "daemon.lock was not taken again: \(daemon.log(tail: 20))")
        // The daemon logs after it has taken the lock: the line may come a moment later.
        XCTAssertTrue(eventually(2) { daemon.log().contains("locked it again") }, daemon.log(tail: 20))
        XCTAssertTrue(try daemon.client.send(.ping).isOK)
    }

    func stateValue(_ key: String) -> String? {
        guard case .ok(let fields, _)? = try? daemon.client.send(.stateGet(nil)) else { return nil }
        return fields[key]
    }

    func testSocketFileDeleted() throws {
        try FileManager.default.removeItem(atPath: daemon.socketPath)
        let recreated = eventually(5) { (try? daemon.client.send(.ping))?.isOK == true }
        XCTAssertTrue(recreated || daemon.log().contains("socket"), "neither re-created nor logged: \(daemon.log(tail: 20))")
        XCTAssertTrue(recreated, "the socket was not re-created within 5 s")
    }

    func testAControlFileReplacedByADirectory() throws {
        XCTAssertEqual(try daemon.cli.run(["volume", "0.5"]).status, 0)
        let volume = daemon.stateDir + "/volume"
        try FileManager.default.removeItem(atPath: volume)
        try FileManager.default.createDirectory(atPath: volume, withIntermediateDirectories: false)
        usleep(200_000)
        XCTAssertTrue(daemon.isRunning)
        XCTAssertTrue(try daemon.client.send(.ping).isOK)
        // The daemon keeps a usable volume (the last good one or the default) and plays.
        let v = Double(stateValue("volume") ?? "") ?? -1
        XCTAssertTrue(v == 0.5 || v == 1, "volume became \(v)")
        XCTAssertTrue(try playsNow())
        // Setting it now is refused with a message naming the file, not a crash.
        let set = try daemon.cli.run(["volume", "0.7"])
        XCTAssertNotEqual(set.status, 0, set.output)
        XCTAssertTrue(set.output.contains("volume"), set.output)
        try FileManager.default.removeItem(atPath: volume)
        XCTAssertEqual(try daemon.cli.run(["volume", "0.7"]).status, 0)
        XCTAssertTrue(eventually(3) { self.stateValue("volume") == "0.7" })
    }

    /// `sysound silent on` into a full file system: the command fails and
    /// names the file, the old content stays whole. A 64 KiB tmpfs filled
    /// to the last block (needs root and mount(2); skipped otherwise).
    func testDiskFullWhenTheCLIWritesAControlFile() throws {
        let mnt = daemon.root + "/full"
        try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: false)
        let mount = try Spawned.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", mnt])
        guard mount.status == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mount.stderr)") }
        defer { _ = try? Spawned.run("/bin/umount", [mnt]) }
        let state = mnt + "/state"
        XCTAssertEqual(try daemon.cli.run(["volume", "0.25"]).status, 0)  // the daemon's own dir: fine
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try "0.25\n".write(toFile: state + "/volume", atomically: false, encoding: .utf8)
        // Fill the file system.
        let filler = FileHandle(forWritingAtPath: { FileManager.default.createFile(atPath: mnt + "/filler", contents: nil); return mnt + "/filler" }())!
        let block = Data(count: 4096)
        while (try? filler.write(contentsOf: block)) != nil {}
        try? filler.close()
        // The CLI, without a daemon on that directory, writes the file itself.
        let r = try CLI(stateDir: state).run(["volume", "0.75"])
        XCTAssertNotEqual(r.status, 0, "a write into a full file system succeeded: \(r.output)")
        XCTAssertTrue(r.output.contains("volume"), "the error does not name the file: \(r.output)")
        XCTAssertEqual(try String(contentsOfFile: state + "/volume", encoding: .utf8), "0.25\n", "the old file did not stay whole")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0 != "volume" }
        XCTAssertEqual(leftovers, [], "temporary files left behind")
    }
}
