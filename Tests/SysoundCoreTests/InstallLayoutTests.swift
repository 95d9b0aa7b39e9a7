import SysoundCore
import XCTest

final class InstallLayoutTests: XCTestCase {
    func testPrefixComesFromBinOrLibexecSysound() {
        XCTAssertEqual(InstallLayout.prefix(ofExecutable: "/usr/bin/sysound"), "/usr")
        XCTAssertEqual(InstallLayout.prefix(ofExecutable: "/opt/x/libexec/sysound/sysound-engine"), "/opt/x")
        XCTAssertEqual(InstallLayout.prefix(ofExecutable: "/tmp/p//bin/sysound"), "/tmp/p")
        XCTAssertEqual(InstallLayout.prefix(ofExecutable: "/bin/sysound"), "/")
        // Not an installed layout: a build directory, libexec of another program.
        XCTAssertNil(InstallLayout.prefix(ofExecutable: "/src/sysound/.build/release/sysound"))
        XCTAssertNil(InstallLayout.prefix(ofExecutable: "/usr/libexec/other/sysound-engine"))
        XCTAssertNil(InstallLayout.prefix(ofExecutable: "sysound"))
    }

    func testSystemConfigurationOfUsrIsEtc() {
        XCTAssertEqual(InstallLayout.sysconfDirectory(prefix: "/usr"), "/etc")
        XCTAssertEqual(InstallLayout.sysconfDirectory(prefix: "/usr/local"), "/usr/local/etc")
        XCTAssertEqual(InstallLayout.sysconfDirectory(prefix: "/"), "/etc")
    }
}
