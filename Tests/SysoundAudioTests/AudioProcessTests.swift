import Foundation
import SysoundCore
import SysoundTestSupport
import XCTest
@testable import SysoundAudio

/// An engine's open has no process-wide side effect: the environment is
/// written only while the process has one thread (`AudioProcess.prepare`),
/// and file descriptor 2 stays where it is.
final class AudioProcessTests: XCTestCase {
    /// Every `NAME=value` of the process environment, read through `environ`
    /// (what libpulse and OpenAL Soft read), not Foundation's copy.
    private func environment() -> [String] {
        var out: [String] = []
        var p = environ
        while let entry = p.pointee {
            out.append(String(cString: entry))
            p += 1
        }
        return out.sorted()
    }

    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Bool
        init(_ value: Bool) { stored = value }
        var value: Bool {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    private static func standardErrorIdentity() -> [UInt64] {
        var st = stat()
        fstat(2, &st)
        return [UInt64(st.st_dev), UInt64(st.st_ino), UInt64(st.st_rdev)]
    }

    func testAnEngineOpenLeavesTheEnvironmentAndStandardErrorAlone() throws {
        let before = environment()
        let stderrBefore = Self.standardErrorIdentity()
        // Watches fd 2 from another thread while the engines open.
        let watching = Flag(true), redirected = Flag(false)
        let watcher = Thread {
            while watching.value {
                if Self.standardErrorIdentity() != stderrBefore { redirected.value = true }
                usleep(100)
            }
        }
        watcher.start()
        defer { watching.value = false }

        var s = AudioSettings()
        s.backend = .auto
        try AudioEngine(settings: s, output: .loopback).shutdown()
        if (try? PulseFixture.require()) != nil {
            for backend in [AudioBackend.openal, .pulse, .auto] {
                s.backend = backend
                try AudioEngine(settings: s, output: .device).shutdown()
            }
        }
        watching.value = false
        XCTAssertEqual(environment(), before, "an engine's open wrote the environment")
        XCTAssertFalse(redirected.value, "file descriptor 2 was redirected during an open")
    }

    /// A private config file named in ALSOFT_CONF by a sysound parent is not
    /// the user's: a child replaces it (before its threads); the user's own stays.
    func testAParentsConfigFileIsNotTakenForTheUsers() {
        let tmp = NSTemporaryDirectory()
        XCTAssertTrue(AudioProcess.isUnclaimed(nil))
        XCTAssertTrue(AudioProcess.isUnclaimed(tmp + "sysound-alsoft-1.conf"))
        XCTAssertFalse(AudioProcess.isUnclaimed(tmp + "sysound-alsoft-\(getpid()).conf"), "this process's own")
        XCTAssertFalse(AudioProcess.isUnclaimed("/home/u/.config/alsoft.conf"))
        XCTAssertFalse(AudioProcess.isUnclaimed("/etc/sysound-alsoft-1.conf"))
    }
}
