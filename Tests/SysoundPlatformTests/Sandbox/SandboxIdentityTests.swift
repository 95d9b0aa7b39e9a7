import Foundation
import Glibc
import SysoundPlatform
import SysoundTestSupport
import XCTest

/// Reading a process's sandbox: the info file and label parsers, and real
/// processes (this one, the host; one in bubblewrap with an info file).
final class SandboxIdentityTests: XCTestCase {
    static let info = """
        [Application]
        name=org.example.Clock
        runtime=runtime/org.example.Platform/x86_64/1

        [Instance]
        instance-id=1234
        app-path=/var/lib/flatpak/app/org.example.Clock/current/active/files
        runtime-path=/var/lib/flatpak/runtime/org.example.Platform/x86_64/1/active/files
        """

    func testInfoFileAsFlatpakWritesIt() throws {
        let info = try FlatpakInfo(parsing: Self.info)
        XCTAssertEqual(info.app, "org.example.Clock")
        XCTAssertEqual(info.instance, "1234")
        XCTAssertEqual(info.appPath, "/var/lib/flatpak/app/org.example.Clock/current/active/files")
        XCTAssertEqual(info.runtimePath, "/var/lib/flatpak/runtime/org.example.Platform/x86_64/1/active/files")
        // A runtime run by itself is named by [Runtime], as the portal reads it.
        let runtime = try FlatpakInfo(parsing: "[Runtime]\nname=org.example.Sdk\n[Instance]\ninstance-id=7\n")
        XCTAssertEqual(runtime.app, "org.example.Sdk")
    }

    func testMalformedInfoFilesAreRefusedWithTheReason() {
        let cases: [(String, String)] = [
            ("[Application\nname=org.example.Clock\n[Instance]\ninstance-id=1\n", "line 1"),
            ("name=org.example.Clock\n", "line 1"),
            ("[Application]\n[Instance]\ninstance-id=1\n", "no [Application] name"),
            ("[Application]\nname=Clock\n[Instance]\ninstance-id=1\n", "not a valid app id"),
            ("[Application]\nname=org.example.9Clock\n[Instance]\ninstance-id=1\n", "not a valid app id"),
            ("[Application]\nname=org.example.Clock\n", "no [Instance] instance-id"),
            ("[Application]\nname=org.example.Clock\n[Instance]\ninstance-id=../../x\n", "not an instance id"),
            ("[Application]\nname=org.example.Clock\nname=org.example.Other\n[Instance]\ninstance-id=1\n", "appears twice"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try FlatpakInfo(parsing: text), text) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(error) should say \(reason)")
            }
        }
    }

    func testSnapLabels() throws {
        XCTAssertEqual(try SandboxProbe.snapName(label: "snap.firefox.firefox (enforce)"), "firefox")
        XCTAssertEqual(try SandboxProbe.snapName(label: "snap.gnome-clocks_beta.hook.configure (complain)"), "gnome-clocks_beta")
        XCTAssertNil(try SandboxProbe.snapName(label: "unconfined"))
        XCTAssertNil(try SandboxProbe.snapName(label: "/usr/bin/evince (enforce)"))
        XCTAssertThrowsError(try SandboxProbe.snapName(label: "snap.Bad Name"))
        XCTAssertThrowsError(try SandboxProbe.snapName(label: "snap.firefox"))
        XCTAssertEqual(SandboxIdentity.snap(name: "firefox").verifiedApp, "snap.firefox")
    }

    func testThisProcessIsTheHost() throws {
        XCTAssertEqual(SandboxProbe.identity(of: try ProcessHandle(pid: getpid())), .host)
    }

    func testAProcessThatExitedIsNeverTheHost() throws {
        let child = try Spawned.run("/bin/true", [])
        XCTAssertEqual(child.status, 0)
        // A pid no process has (the largest possible): gone, so no handle at all.
        XCTAssertThrowsError(try ProcessHandle(pid: 4_194_304 - 1))
    }

    /// A process in bubblewrap with an info file is that app; with a broken
    /// one it is unknown; the handle refuses a process that has exited.
    func testABubblewrapSandboxIsReadFromItsOwnRoot() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap") else {
            throw FixtureError("bwrap is missing; install bubblewrap (make test does)")
        }
        func identity(info: String) throws -> SandboxIdentity {
            let path = NSTemporaryDirectory() + "info-\(UUID().uuidString.prefix(8))"
            try info.write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let sandbox = try Spawned(
                // A fresh root (never a bind of the host's /, where the info file's mount point would be made).
                "/usr/bin/bwrap", ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                                   "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev", "--ro-bind", path, "/.flatpak-info",
                                   "--die-with-parent", "sleep", "30"])
            defer {
                sandbox.signal(SIGKILL)
                sandbox.wait()
            }
            // bwrap execs sleep in a child; find it.
            var pid: pid_t = 0
            XCTAssertTrue(eventually(5) {
                let children = (try? String(contentsOfFile: "/proc/\(sandbox.pid)/task/\(sandbox.pid)/children", encoding: .utf8)) ?? ""
                pid = children.split(separator: " ").first.flatMap { pid_t($0) } ?? 0
                return pid > 0 && ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").hasPrefix("sleep")
            })
            return SandboxProbe.identity(of: try ProcessHandle(pid: pid))
        }
        XCTAssertEqual(try identity(info: Self.info).verifiedApp, "org.example.Clock")
        guard case .unknown(let reason) = try identity(info: "[Application]\nname=org.example.Clock\n") else {
            return XCTFail("a malformed info file was not 'sandboxed, unknown'")
        }
        XCTAssertTrue(reason.contains("instance-id"), reason)
    }
}
