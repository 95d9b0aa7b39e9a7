import SysoundCore
@testable import SysoundDaemon
import SysoundPlatform
import SysoundTestSupport
import XCTest

/// Which app id decides: a sandbox's proved id over the claim, no app for an
/// unknown sandbox, the claim for the host; a mismatch logged once per caller.
final class CallerAppsTests: XCTestCase {
    func testTheSandboxsIDDecidesAndIsLoggedOncePerCaller() {
        let log = LogCapture()
        let reported = Locked<[String]>([])
        let callers = CallerApps(logger: log.logger, runtimeDirectory: nil) { line in reported.withLock { $0.append(line) } }
        let notes = SandboxIdentity.flatpak(FlatpakInfo(app: "org.example.Notes", instance: "7"))

        XCTAssertEqual(callers.app(claimed: "org.example.Clock", identity: .host, caller: ":1.1"), "org.example.Clock")
        XCTAssertEqual(callers.app(claimed: "org.example.Clock", identity: notes, caller: ":1.2"), "org.example.Notes")
        XCTAssertEqual(callers.app(claimed: "org.example.Clock", identity: notes, caller: ":1.2"), "org.example.Notes")
        XCTAssertEqual(callers.app(claimed: nil, identity: .snap(name: "firefox"), caller: "socket peer pid 9"), "snap.firefox")
        XCTAssertNil(callers.app(claimed: "org.example.Clock", identity: .unknown(reason: "malformed"), caller: ":1.3"))

        let warnings = log.messages.filter { $0.contains("claims app id") }
        XCTAssertEqual(warnings.count, 2, "once for :1.2, once for :1.3 (a snap that claims nothing is no mismatch): \(warnings)")
        XCTAssertTrue(warnings[0].contains("\"org.example.Notes\" decides"), warnings[0])
        XCTAssertEqual(reported.withLock { $0.last }, "org.example.Notes(flatpak):2,snap.firefox(snap):1,unknown:1")

        // A caller that left and whose name comes back is warned again.
        callers.forget(":1.2")
        _ = callers.app(claimed: "org.example.Clock", identity: notes, caller: ":1.2")
        XCTAssertEqual(log.messages.filter { $0.contains("claims app id") }.count, 3)
    }
}
