import Foundation
import Sysound
import SysoundTestSupport
import XCTest

/// An app that exits while its embedded engine plays (no daemon) closes what
/// the engine opened, and ends with its own exit status. Left open, the
/// devices met OpenAL Soft's library destructor (`alc_cleanup`, run by
/// exit()) with the own stream's render still mixing into them, and it
/// counted them ("AL lib: (EE) alc_cleanup: 2 devices not closed", shown
/// here with ALSOFT_LOGLEVEL=1). Each child (this test, run again by itself)
/// plays a tap and the 2 s ringtone on the real sound server, waits a step
/// longer each time, and exits with status 3.
final class LibraryExitTests: XCTestCase {
    func testAnAppExitingWhileItsEmbeddedEnginePlaysEndsWithItsStatus() throws {
        let environment = ProcessInfo.processInfo.environment
        if let delay = environment[Self.childDelay].flatMap(UInt32.init), let state = environment[Self.childState] {
            let sound = SoundService(stateDirectory: state, mode: .embedded)
            _ = try? sound.play("tap")
            _ = try? sound.play("ringtone")
            usleep(delay)
            exit(3)
        }
        try Pulse.require()
        let state = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        for delay in stride(from: 0, to: 300_000, by: 60_000) {
            let (status, said) = try runThisTestAgain(
                "SysoundDaemonTests.LibraryExitTests/testAnAppExitingWhileItsEmbeddedEnginePlaysEndsWithItsStatus",
                environment: [Self.childDelay: "\(delay)", Self.childState: state, "ALSOFT_LOGLEVEL": "1"])
            XCTAssertEqual(status, 3, "exit status (negative: a signal) after \(delay) µs; stderr: \(said.suffix(500))")
            let leftOpen = said.split(separator: "\n").filter { $0.contains("not closed") }
            XCTAssertEqual(leftOpen, [], "the devices the engine opened are closed at exit (after \(delay) µs)")
        }
    }

    private static let childDelay = "SYSOUND_TEST_EXIT_WHILE_PLAYING_US"
    private static let childState = "SYSOUND_TEST_EXIT_STATE_DIR"
}
