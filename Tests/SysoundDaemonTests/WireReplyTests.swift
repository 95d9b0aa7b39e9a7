import SysoundCore
import XCTest

final class WireReplyTests: XCTestCase {
    func testTextForm() {
        XCTAssertEqual(String(decoding: Reply.ok().encoded(), as: UTF8.self), "sysound/1 ok")
        XCTAssertEqual(String(decoding: Reply.ok(["id": "3.17", "outcome": "play"]).encoded(), as: UTF8.self),
                       "sysound/1 ok id=3.17 outcome=play")
        XCTAssertEqual(
            String(decoding: Reply.error(.unknownSound, "no sound named \"tapp\";\ndid you mean \"tap\"?").encoded(), as: UTF8.self),
            "sysound/1 error unknown-sound no sound named \"tapp\"; did you mean \"tap\"?")
        let list = Reply.ok(["count": "2"], records: [["name": "tap", "file": "/usr/share/a b.wav"], ["name": "x"]])
        XCTAssertEqual(String(decoding: list.encoded(), as: UTF8.self),
                       "sysound/1 ok count=2\nname=tap file=/usr/share/a%20b.wav\nname=x")
    }

    /// A tab or space followed by a combining mark is one Character to Swift
    /// but spacing on the wire (found by the WireReply fuzzer).
    func testSpacingBeforeACombiningMarkIsStillSpacing() throws {
        let bytes = Array("sysound/1 error bad\t\t\u{0599}i".utf8)
        let reply = try Reply(parsing: bytes)
        XCTAssertEqual(reply, .error(WireErrorCode(rawValue: "bad"), "\u{0599}i"))
        XCTAssertEqual(try Reply(parsing: reply.encoded()), reply)
    }

    func testRoundTrips() throws {
        let replies: [Reply] = [
            .ok(), .ok(["id": "1.2"]), .ok(["path": "a=b %c d\té"]),
            .ok(["count": "0"], records: []),
            .ok(["count": "3"], records: [["name": "tap", "category": "ambient"], [:], ["name": "ring"]]),
            .error(.badValue, "gain \"2\": expected a number from 0 to 1"),
            .error(WireErrorCode(rawValue: "from-the-future"), "a code this build does not know"),
            .error(.internal, ""),
        ]
        for reply in replies {
            XCTAssertEqual(try Reply(parsing: reply.encoded()), reply)
        }
    }

    func testMalformedReplies() {
        func refused(_ text: String, _ expected: ReplyParseError, line: UInt = #line) {
            XCTAssertThrowsError(try Reply(parsing: Array(text.utf8)), line: line) {
                XCTAssertEqual($0 as? ReplyParseError, expected, line: line)
            }
        }
        refused("", .empty)
        refused("sysound/2 ok", .version("sysound/2"))
        refused("sysound/1", .malformed(line: 1, "sysound/1"))
        refused("sysound/1 maybe", .malformed(line: 1, "sysound/1 maybe"))
        refused("sysound/1 error", .malformed(line: 1, "sysound/1 error"))
        refused("sysound/1 ok id", .malformed(line: 1, "id"))
        refused("sysound/1 ok id=1 id=2", .malformed(line: 1, "id=2"))
        refused("sysound/1 ok\nname=%zz", .malformed(line: 2, "name=%zz"))
        XCTAssertThrowsError(try Reply(parsing: [0xFF])) { XCTAssertEqual($0 as? ReplyParseError, .invalidUTF8) }
    }

    func testFieldsKeepOrderAndReplace() {
        var fields: WireFields = ["b": "1", "a": "2"]
        fields["b"] = "3"
        fields["c"] = "4"
        XCTAssertEqual(fields.map(\.key), ["b", "a", "c"])
        XCTAssertEqual(fields["b"], "3")
        fields["a"] = nil
        XCTAssertEqual(fields.map(\.key), ["b", "c"])
    }
}
