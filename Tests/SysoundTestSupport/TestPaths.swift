import Foundation

/// Where the package and its built executables are, seen from a test run.
package enum TestPaths {
    /// The package's root directory (this file is Tests/SysoundTestSupport/TestPaths.swift).
    package static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// The directory of the running test binary.
    package static var testBinaryDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    /// An executable product built next to the tests (in the test binary's
    /// directory or the one above it, as SwiftPM lays them out).
    package static func executable(_ name: String) throws -> String {
        let binDir = testBinaryDirectory
        for dir in [binDir, binDir.deletingLastPathComponent()] {
            let path = dir.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw FixtureError("the \(name) binary is not built next to the tests; run `swift build --build-tests`")
    }

    /// The `sysound` executable.
    package static var sysound: String {
        get throws { try executable("sysound") }
    }
}
