import SysoundDesktop
import XCTest

/// The lookup order of the user's session, without a bus: each test plays
/// logind's answers into the resolver and checks the next question.
final class SessionResolverTests: XCTestCase {
    typealias R = SessionResolver
    let s3 = "/org/freedesktop/login1/session/_33"

    /// The query an action asks, failing the test for anything else.
    private func request(_ action: R.Action?, _ line: UInt = #line) -> R.Request? {
        guard case .query(let request)? = action else {
            XCTFail("expected a query, got \(String(describing: action))", line: line)
            return nil
        }
        return request
    }

    func testTheDaemonsOwnSessionComesFirstAndIsNamedByItsId() throws {
        var r = R(pid: 42)
        let byPID = try XCTUnwrap(request(r.start()))
        XCTAssertEqual(byPID.query, .sessionByPID(42))
        let id = try XCTUnwrap(request(r.receive(.path(s3), for: byPID)))
        XCTAssertEqual(id.query, .sessionID(path: s3))
        XCTAssertEqual(r.receive(.id("3"), for: id), .follow(.init(id: "3", path: s3, via: .ownProcess)))
        XCTAssertEqual(r.session?.id, "3")
        // Its own session does not move when another session appears ...
        XCTAssertNil(r.sessionsChanged())
        XCTAssertNil(r.sessionsChanged(removed: "4"))
        // ... but when it ends, the display session is looked up.
        XCTAssertEqual(request(r.sessionsChanged(removed: "3"))?.query, .userDisplay)
    }

    func testOutsideASessionTheUsersDisplaySessionIsFollowed() throws {
        var r = R(pid: 42)
        let byPID = try XCTUnwrap(request(r.start()))
        let display = try XCTUnwrap(request(r.receive(.failed("org.freedesktop.login1.NoSessionForPID: PID 42 does not belong to any known session"), for: byPID)))
        XCTAssertEqual(display.query, .userDisplay)
        XCTAssertEqual(r.receive(.display(id: "3", path: s3), for: display), .follow(.init(id: "3", path: s3, via: .display)))
    }

    func testWithoutUserSelfTheAutoSessionIdGivesTheRealPath() throws {
        var r = R(pid: 42)
        let byPID = try XCTUnwrap(request(r.start()))
        let display = try XCTUnwrap(request(r.receive(.failed("NoSessionForPID"), for: byPID)))
        // logind's "no display": the empty pair.
        let auto = try XCTUnwrap(request(r.receive(.display(id: "", path: "/"), for: display)))
        XCTAssertEqual(auto.query, .autoSessionID)
        let path = try XCTUnwrap(request(r.receive(.id("7"), for: auto)))
        XCTAssertEqual(path.query, .sessionPath(id: "7"))
        XCTAssertEqual(r.receive(.path("/org/freedesktop/login1/session/_37"), for: path),
                       .follow(.init(id: "7", path: "/org/freedesktop/login1/session/_37", via: .display)))
    }

    func testNoSessionAtAllSaysWhyInOneLine() throws {
        var r = R(pid: 42)
        let byPID = try XCTUnwrap(request(r.start()))
        let display = try XCTUnwrap(request(r.receive(.failed("NoSessionForPID: not in a session"), for: byPID)))
        let auto = try XCTUnwrap(request(r.receive(.failed("UnknownObject: user/self"), for: display)))
        guard case .none(let why)? = r.receive(.failed("UnknownObject: session/auto"), for: auto) else { return XCTFail() }
        XCTAssertEqual(why, "no login session to follow (GetSessionByPID(42): NoSessionForPID: not in a session; Display of user/self: UnknownObject: user/self; Id of session/auto: UnknownObject: session/auto)")
        XCTAssertNil(r.session)
        XCTAssertNil(r.pending)
        // A new login is announced: the lookup starts again at the display.
        XCTAssertEqual(request(r.sessionsChanged())?.query, .userDisplay)
    }

    func testADisplaySessionChangeIsFollowedAndAnUnchangedOneKept() throws {
        var r = R(pid: 42)
        let byPID = try XCTUnwrap(request(r.start()))
        let display = try XCTUnwrap(request(r.receive(.failed("NoSessionForPID"), for: byPID)))
        _ = r.receive(.display(id: "3", path: s3), for: display)
        let again = try XCTUnwrap(request(r.sessionsChanged()))
        XCTAssertEqual(r.receive(.display(id: "3", path: s3), for: again), .keep)
        let other = try XCTUnwrap(request(r.sessionsChanged()))
        let s4 = "/org/freedesktop/login1/session/_34"
        XCTAssertEqual(r.receive(.display(id: "4", path: s4), for: other), .follow(.init(id: "4", path: s4, via: .display)))
        XCTAssertEqual(r.session?.id, "4")
    }

    /// A change while the display is being read asks again; the answer to
    /// the earlier question (maybe computed before the change) is dropped.
    func testAnAnswerOvertakenByAChangeIsDropped() throws {
        var r = R(pid: 42)
        let byPID = try XCTUnwrap(request(r.start()))
        XCTAssertNil(r.sessionsChanged(), "the PID lookup goes on by itself")
        let first = try XCTUnwrap(request(r.receive(.failed("NoSessionForPID"), for: byPID)))
        let second = try XCTUnwrap(request(r.sessionsChanged()))
        XCTAssertEqual(first.query, second.query)
        XCTAssertNil(r.receive(.display(id: "3", path: s3), for: first), "stale")
        XCTAssertEqual(r.receive(.display(id: "4", path: "/p4"), for: second), .follow(.init(id: "4", path: "/p4", via: .display)))
    }

    func testLogindLeavingForgetsTheSessionAndItsReturnStartsOver() throws {
        var r = R(pid: 42)
        let byPID = try XCTUnwrap(request(r.start()))
        let display = try XCTUnwrap(request(r.receive(.failed("NoSessionForPID"), for: byPID)))
        _ = r.receive(.display(id: "3", path: s3), for: display)
        r.logindVanished()
        XCTAssertNil(r.session)
        XCTAssertNil(r.receive(.display(id: "9", path: "/p9"), for: display), "nothing pending after logind left")
        let restart = try XCTUnwrap(request(r.start()))
        XCTAssertEqual(restart.query, .sessionByPID(42))
        let d2 = try XCTUnwrap(request(r.receive(.failed("NoSessionForPID"), for: restart)))
        // The same session after the return is still "follow": the source
        // subscribed nothing while logind was gone.
        XCTAssertEqual(r.receive(.display(id: "3", path: s3), for: d2), .follow(.init(id: "3", path: s3, via: .display)))
    }

    func testAnAnswerOfTheWrongShapeFallsThroughToTheNextStep() throws {
        var r = R(pid: 1)
        let byPID = try XCTUnwrap(request(r.start()))
        let id = try XCTUnwrap(request(r.receive(.path("/x"), for: byPID)))
        XCTAssertEqual(request(r.receive(.id(""), for: id))?.query, .userDisplay)
    }
}
