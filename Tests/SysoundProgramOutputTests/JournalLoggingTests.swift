import Foundation
import Glibc
import Logging
import XCTest
@testable import SysoundProgramOutput

/// Logging under journald: priorities and fields instead of a second
/// timestamp and one priority for every line.
final class JournalLoggingTests: XCTestCase {
    func testLevelsMapToSyslogPriorities() {
        let expected: [(Logger.Level, Int)] = [
            (.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
        ]
        for (level, priority) in expected {
            XCTAssertEqual(JournalFormat.priority(level), priority, "\(level)")
        }
    }

    func testAStreamLineCarriesThePriorityAndNoTimestamp() {
        XCTAssertEqual(
            JournalFormat.line(level: .warning, message: "cannot open /dev/input/event3", label: "sysound.haptics", metadata: [:]),
            "<4>sysound.haptics: cannot open /dev/input/event3\n")
        XCTAssertEqual(
            JournalFormat.line(level: .error, message: "failed", label: "", metadata: ["path": "/x", "code": "2"]),
            "<3>failed code=2 path=/x\n")
        // journald splits at newlines: every line keeps its priority.
        XCTAssertEqual(
            JournalFormat.line(level: .info, message: "one\ntwo", label: "l", metadata: [:]),
            "<6>l: one\n<6>two\n")
    }

    func testFieldsCarryMessagePriorityIdentifierCodeAndMetadata() {
        let fields = JournalFormat.fields(
            level: .notice, message: "serving", label: "sysound.daemon",
            metadata: ["socket": "/run/user/1000/sysound/socket", "app-id": "org.example.App", "message": "shadow"],
            file: "SysoundServer/Daemon.swift", line: 42, function: "start()")
        let byName = Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(byName["MESSAGE"], "serving")
        XCTAssertEqual(byName["PRIORITY"], "5")
        XCTAssertEqual(byName["SYSLOG_IDENTIFIER"], "sysound")
        XCTAssertEqual(byName["CODE_FILE"], "SysoundServer/Daemon.swift")
        XCTAssertEqual(byName["CODE_LINE"], "42")
        XCTAssertEqual(byName["CODE_FUNC"], "start()")
        XCTAssertEqual(byName["SYSOUND_LOGGER"], "sysound.daemon")
        XCTAssertEqual(byName["SOCKET"], "/run/user/1000/sysound/socket")
        XCTAssertEqual(byName["APP_ID"], "org.example.App")
        // Metadata never replaces a field the handler sets.
        XCTAssertEqual(byName["SYSOUND_MESSAGE"], "shadow")
        XCTAssertEqual(fields.filter { $0.name == "MESSAGE" }.count, 1)
    }

    func testMetadataKeysBecomeValidFieldNames() {
        XCTAssertEqual(JournalFormat.fieldName("device"), "DEVICE")
        XCTAssertEqual(JournalFormat.fieldName("voice.id"), "VOICE_ID")
        XCTAssertEqual(JournalFormat.fieldName("_trusted"), "SYSOUND__TRUSTED", "a leading _ is journald's own")
        XCTAssertEqual(JournalFormat.fieldName("2nd"), "SYSOUND_2ND", "a field starts with a letter")
        XCTAssertEqual(JournalFormat.fieldName(""), "SYSOUND_")
        XCTAssertEqual(JournalFormat.fieldName(String(repeating: "k", count: 100)).count, 64)
    }

    /// The handler sends natively first and writes the prefixed line only when the journal refuses.
    func testTheHandlerFallsBackToPrefixedLinesWhenTheJournalRefuses() {
        let sent = LockedList<[JournalField]>(), written = LockedList<String>()
        var accepting = JournalLogHandler(label: "t", sendNative: { sent.append($0); return true }, writeLine: { written.append($0) })
        accepting.metadata["device"] = "vibra"
        Logger(label: "t", factory: { _ in accepting }).error("motor stalled", metadata: ["step": "3"])
        XCTAssertEqual(written.items, [])
        XCTAssertEqual(sent.items.first?.first, JournalField("MESSAGE", "motor stalled"))
        XCTAssertTrue(sent.items.first?.contains(JournalField("DEVICE", "vibra")) ?? false, "\(sent.items)")
        XCTAssertTrue(sent.items.first?.contains(JournalField("STEP", "3")) ?? false, "\(sent.items)")

        let refusing = JournalLogHandler(label: "t", sendNative: { _ in false }, writeLine: { written.append($0) })
        Logger(label: "t", factory: { _ in refusing }).warning("slow")
        XCTAssertEqual(written.items, ["<4>t: slow\n"])
    }

    func testJournalStreamMustNameThisVeryStream() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { fds.forEach { close($0) } }
        var st = stat()
        XCTAssertEqual(fstat(fds[1], &st), 0)
        XCTAssertTrue(JournalStream.isConnected("\(st.st_dev):\(st.st_ino)", fd: fds[1]))
        XCTAssertFalse(JournalStream.isConnected("\(st.st_dev):\(st.st_ino + 1)", fd: fds[1]), "another stream")
        XCTAssertFalse(JournalStream.isConnected(nil, fd: fds[1]))
        for garbage in ["", ":", "\(st.st_dev)", "a:b", "\(st.st_dev):\(st.st_ino):1", " \(st.st_dev):\(st.st_ino)"] {
            XCTAssertFalse(JournalStream.isConnected(garbage, fd: fds[1]), "\"\(garbage)\"")
        }
    }

    /// The real writer on a pipe that JOURNAL_STREAM names: what journald
    /// would read when its native socket is absent (as in this sandbox).
    func testWithoutAJournalSocketLinesGoToTheStreamPrefixed() throws {
        guard access("/run/systemd/journal/socket", F_OK) != 0 else {
            throw XCTSkip("a journal runs here: entries go to it natively, not to the stream")
        }
        XCTAssertFalse(JournalField.send([JournalField("MESSAGE", "x")]), "no journal socket, yet the entry was taken")
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let writer = fds[1]
        let handler = JournalLogHandler(label: "sysound.daemon", sendNative: JournalField.send, writeLine: { writeAll(writer, Array($0.utf8)) })
        Logger(label: "sysound.daemon", factory: { _ in handler }).notice("serving", metadata: ["socket": "/s"])
        close(writer)
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = read(fds[0], &buffer, buffer.count)
        XCTAssertEqual(String(decoding: buffer[..<max(n, 0)], as: UTF8.self), "<5>sysound.daemon: serving socket=/s\n")
    }
}

final class LockedList<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [T] = []
    func append(_ item: T) { lock.withLock { list.append(item) } }
    var items: [T] { lock.withLock { list } }
}
