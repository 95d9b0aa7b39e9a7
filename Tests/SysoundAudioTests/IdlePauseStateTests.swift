import XCTest
@testable import SysoundAudio

/// The idle pause's rules as one value (`IdlePause`), without a device: what
/// a play does to a pause in flight, and where a worker's return leads.
final class IdlePauseStateTests: XCTestCase {
    func testAPauseWithNoPlayEndsPaused() {
        var s = IdlePause.pausing(resumeOwed: false)
        XCTAssertTrue(s.isPaused, "nothing mixes from the moment the pause is decided")
        XCTAssertTrue(s.callInFlight)
        s.pauseReturned()
        XCTAssertEqual(s, .paused)
        XCTAssertFalse(s.callInFlight)
    }

    func testAPlayDuringThePauseIsOwedAResume() {
        var s = IdlePause.pausing(resumeOwed: false)
        s.endPause()
        XCTAssertEqual(s, .pausing(resumeOwed: true), "the worker still pauses; it resumes after")
        XCTAssertFalse(s.isPaused, "a second play does not ask again")
        XCTAssertTrue(s.callInFlight, "the device is not closed or paused again meanwhile")
        s.pauseReturned()
        XCTAssertEqual(s, .running)
    }

    func testAPlayEndsAPauseAndTheResumeReturns() {
        var s = IdlePause.paused
        s.endPause()
        XCTAssertEqual(s, .running)
        s = .resuming
        s.endPause()
        XCTAssertEqual(s, .resuming, "a play during a resume changes nothing")
        s.resumeReturned()
        XCTAssertEqual(s, .running)
        s.pauseReturned()
        XCTAssertEqual(s, .running, "no pause returns where none was made")
    }
}
