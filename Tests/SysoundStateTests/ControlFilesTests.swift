import Foundation
import SysoundCore
import XCTest
@testable import SysoundState

final class ControlFilesTests: XCTestCase {
    var dir: StateDirectory!
    var files: ControlFiles!

    override func setUpWithError() throws {
        let path = NSTemporaryDirectory() + "sysound-state-\(UUID().uuidString)/sysound"
        dir = StateDirectory(path: path)
        try dir.prepare()
        files = ControlFiles(directory: dir)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: (dir.path as NSString).deletingLastPathComponent)
    }

    func testPrepareCreatesAPrivateDirectory() throws {
        let mode = try FileManager.default.attributesOfItem(atPath: dir.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o700)
    }

    func testWritableByOthersIsRefused() throws {
        chmod(dir.path, 0o777)
        XCTAssertThrowsError(try dir.prepare()) { XCTAssertEqual($0 as? StateDirectoryError, .writableByOthers(path: dir.path)) }
        chmod(dir.path, 0o700)
    }

    func testResolveOrder() {
        XCTAssertEqual(StateDirectory.resolve(explicit: "/x/y", environment: ["XDG_RUNTIME_DIR": "/run/user/5"]).path, "/x/y")
        XCTAssertEqual(StateDirectory.resolve(environment: ["XDG_RUNTIME_DIR": "/run/user/5"]).path, "/run/user/5/sysound")
        let fallback = StateDirectory.resolve(environment: [:]).path
        XCTAssertTrue(fallback == "/run/user/\(getuid())/sysound" || fallback == "/tmp/sysound-\(getuid())", fallback)
    }

    func testMissingFilesMeanDefaults() {
        let (state, problems) = files.loadAll(previous: SystemState(silent: true, volume: 0.1))
        XCTAssertEqual(state, .defaults)
        XCTAssertEqual(problems, [])
    }

    func testWriteThenReadEveryFile() throws {
        let wanted = SystemState(silent: true, locked: true, volume: 0.25, haptics: false, vibrateOnAlert: true, interrupted: true)
        for control in ControlFile.allCases { try files.write(control, from: wanted) }
        XCTAssertEqual(files.loadAll().state, wanted)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "temp files left behind")
    }

    func testShellStyleContentIsAccepted() throws {
        try "  ON \n".write(toFile: dir.file(.silent), atomically: false, encoding: .utf8)
        try "50%\n".write(toFile: dir.file(.volume), atomically: false, encoding: .utf8)
        let state = files.loadAll().state
        XCTAssertTrue(state.silent)
        XCTAssertEqual(state.volume, 0.5)
    }

    /// Garbage of every kind: a warning naming the file and what was read; the last good value stays.
    func testGarbageKeepsTheLastGoodValue() throws {
        let good = SystemState(silent: true, volume: 0.4)
        let path = dir.file(.silent)
        let cases: [(String, () throws -> Void, String)] = [
            ("maybe", { try "maybe\n".write(toFile: path, atomically: false, encoding: .utf8) }, "\"maybe\\n\""),
            ("10 MB", { try Data(count: 10 << 20).write(to: URL(fileURLWithPath: path)) }, "10485760 bytes"),
            ("binary", { try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: path)) }, "not UTF-8"),
            ("directory", { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }, "not a regular file"),
            ("fifo", { mkfifo(path, 0o600) }, "not a regular file"),
            ("symlink", { symlink("/dev/zero", path) }, "cannot read"),
        ]
        for (name, make, expected) in cases {
            try? FileManager.default.removeItem(atPath: path)
            try make()
            var state = good
            XCTAssertThrowsError(try files.load(.silent, into: &state), name) { error in
                XCTAssertTrue("\(error)".contains(path), "\(name): \(error)")
                XCTAssertTrue("\(error)".contains(expected), "\(name): \(error)")
            }
            XCTAssertEqual(state, good, name)
        }
    }

    func testUnreadableFileKeepsTheLastGoodValue() throws {
        try XCTSkipIf(getuid() == 0, "root reads files whatever their mode; the server tests cover this as another user")
        try "1".write(toFile: dir.file(.silent), atomically: false, encoding: .utf8)
        chmod(dir.file(.silent), 0)
        var state = SystemState(silent: false)
        XCTAssertThrowsError(try files.load(.silent, into: &state))
        XCTAssertFalse(state.silent)
    }

    func testFailedWriteLeavesTheOldFileWhole() throws {
        try files.write(.volume, "0.7")
        // A file where the directory should be makes the write fail like a full disk would.
        try "x".write(toFile: dir.path + "/not-a-dir", atomically: false, encoding: .utf8)
        let blocked = StateDirectory(path: dir.path + "/not-a-dir")
        XCTAssertThrowsError(try ControlFiles(directory: blocked).write(.volume, "0.1"))
        XCTAssertEqual(try String(contentsOfFile: dir.file(.volume), encoding: .utf8), "0.7\n")
    }

    /// 10 000 rapid toggles by a writer; a concurrent reader must never see a
    /// torn, empty or missing file.
    func testConcurrentReaderNeverSeesATornFile() throws {
        try files.write(.silent, "off")
        let writer = files!
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for i in 0..<2_000 { try! writer.write(.silent, i % 2 == 0 ? "on" : "off") }
            done.signal()
        }
        var reads = 0
        var bad: [String] = []
        while done.wait(timeout: .now()) == .timedOut {
            var state = SystemState.defaults
            do {
                guard case .content = try files.read(.silent) else { bad.append("missing"); continue }
                try files.load(.silent, into: &state)
            } catch { bad.append("\(error)") }
            reads += 1
        }
        XCTAssertEqual(bad, [])
        XCTAssertGreaterThan(reads, 100)
    }
}

/// `locked-by`: where the current lock value came from.
final class LockOriginTests: XCTestCase {
    func testTheRecordHoldsUntilAnyoneElseWritesTheLockedFile() throws {
        let dir = NSTemporaryDirectory() + "sysound-origin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = ControlFiles(directory: StateDirectory(path: dir))
        let origin = LockOrigin(files: files)
        XCTAssertEqual(origin.describe(), "default", "no locked file")
        try files.write(.locked, "1")
        XCTAssertEqual(origin.describe(), "control file")
        try origin.record("logind session 3")
        XCTAssertEqual(origin.describe(), "logind session 3")
        // The CLI without a daemon: an atomic rename, a new file.
        try files.write(.locked, "1")
        XCTAssertEqual(origin.describe(), "control file")
        try origin.record("org.gnome.ScreenSaver")
        XCTAssertEqual(origin.describe(), "org.gnome.ScreenSaver")
        // A person: `echo 0 > locked`, the same inode rewritten in place.
        let fd = open(dir + "/locked", O_WRONLY | O_TRUNC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(write(fd, "0\n", 2), 2)
        close(fd)
        XCTAssertEqual(origin.describe(), "control file")
        unlink(dir + "/locked")
        XCTAssertEqual(origin.describe(), "default")
        XCTAssertThrowsError(try origin.record("logind session 3"), "nothing to attribute")
    }

    func testAGarbledRecordIsIgnored() throws {
        let dir = NSTemporaryDirectory() + "sysound-origin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let files = ControlFiles(directory: StateDirectory(path: dir))
        try files.write(.locked, "1")
        try String(repeating: "x", count: 5000).write(toFile: dir + "/locked-by", atomically: true, encoding: .utf8)
        XCTAssertEqual(LockOrigin(files: files).describe(), "control file")
        try "logind session 3\n".write(toFile: dir + "/locked-by", atomically: true, encoding: .utf8)
        XCTAssertEqual(LockOrigin(files: files).describe(), "control file")
    }
}
