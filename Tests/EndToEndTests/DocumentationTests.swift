import Foundation
import SysoundTestSupport
import XCTest

/// What the documentation shows works: the socat examples of docs/protocol.md
/// against a real daemon,
/// and `sysound play` on every name of the theme (index names and aliases).
final class DocumentationTests: XCTestCase {
    func testEverySocatExampleOfTheReadmeGetsTheReplyItShows() throws {
        try Pulse.require()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/socat") else {
            throw FixtureError("socat is missing; make test installs it")
        }
        let daemon = try DaemonProcess()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let readme = try String(contentsOfFile: TestPaths.packageRoot + "/docs/protocol.md", encoding: .utf8)
        let lines = readme.split(separator: "\n").map(String.init)
        // Each example is `echo 'REQUEST' | socat [-t N] - $S`, maybe followed by `# REPLY`.
        var checked = 0
        for (index, line) in lines.enumerated() where line.hasPrefix("echo 'sysound/1 ") && line.contains("| socat") {
            let request = String(line.dropFirst("echo '".count).prefix { $0 != "'" })
            guard !request.contains("file=/home/me") else { continue }  // a path only the reader has
            let reply = try socat(request, socket: daemon.socketPath)
            checked += 1
            // This machine has no rumble device: vibrate examples can only say so.
            if request.hasPrefix("sysound/1 vibrate ") {
                XCTAssertTrue(reply.hasPrefix("sysound/1 ok") || reply.hasPrefix("sysound/1 error no-device"), "docs/protocol.md: \(line) → \(reply)")
                continue
            }
            let shown = index + 1 < lines.count && lines[index + 1].hasPrefix("# sysound/1")
                ? String(lines[index + 1].dropFirst(2)) : nil
            if let shown {
                // Fields whose values vary (voice ids) are compared by key.
                XCTAssertEqual(Self.shape(reply), Self.shape(shown), "docs/protocol.md: \(line)")
            } else {
                XCTAssertTrue(reply.hasPrefix("sysound/1 ok"), "docs/protocol.md: \(line) → \(reply)")
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 12, "the socat examples of docs/protocol.md were not found")
    }

    /// A reply's status line with the values that vary between runs and
    /// machines (voice id, clip length) replaced by "…".
    static func shape(_ reply: String) -> String {
        let first = reply.split(separator: "\n").first.map(String.init) ?? ""
        if first.contains(" error ") { return first }
        return first.split(separator: " ").map { token in
            for key in ["id=", "duration-ms=", "device="] where token.hasPrefix(key) { return key + "…" }
            return String(token)
        }.joined(separator: " ")
    }

    func socat(_ request: String, socket: String) throws -> String {
        let child = try Spawned("/usr/bin/socat", ["-t", "2", "-", "UNIX-CONNECT:\(socket),type=5"], input: Data((request + "\n").utf8))
        child.wait()
        return child.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testEveryNameAndAliasOfTheThemePlays() throws {
        let cli = try CLI()
        defer { cli.cleanUp() }
        let list = try cli.run(["list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let sounds = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: String]])
        var names = sounds.compactMap { $0["name"] }
        names += sounds.flatMap { ($0["aliases"] ?? "").split(separator: ",").map(String.init) }
        XCTAssertGreaterThanOrEqual(names.count, 40)
        for name in names {
            let out = cli.stateDir + "/\(name).wav"
            let result = try cli.run(["play", name, "--to", out])
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            let peak = Signal.peak(try readSamples(out).samples)
            XCTAssertGreaterThan(peak, 0.01, "\(name) rendered silence")
        }
    }
}
