#if canImport(Glibc)
import Glibc
#endif
import CSystemd
import Logging

/// Logging for a process whose standard error is connected to journald (a
/// systemd service's default). journald stamps and prioritizes each line
/// itself, so the stream handler's timestamp and level word would appear
/// twice and every line would carry the stream's one priority. Instead each
/// entry goes to the journal natively (`sd_journal_sendv`: PRIORITY,
/// MESSAGE, SYSLOG_IDENTIFIER, CODE_FILE/LINE/FUNC and the logger's metadata
/// as fields), or, when that fails, to standard error as a line with an
/// sd-daemon(3) `<N>` priority prefix and no timestamp, which journald parses.
package struct JournalLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    package let label: String
    /// Sends one entry's fields to the journal; false if it did not take them.
    let sendNative: @Sendable ([JournalField]) -> Bool
    /// Writes one prefixed line (with its newline) where the journal reads the stream.
    let writeLine: @Sendable (String) -> Void

    /// A handler writing to the journal, or to standard error with `<N>` prefixes.
    package init(label: String) {
        self.init(label: label, sendNative: JournalField.send, writeLine: { writeAll(2, Array($0.utf8)) })
    }

    init(label: String, sendNative: @escaping @Sendable ([JournalField]) -> Bool, writeLine: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.sendNative = sendNative
        self.writeLine = writeLine
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error { merged["error"] = "\(error)" }
        let fields = JournalFormat.fields(
            level: event.level, message: "\(event.message)", label: label, metadata: merged,
            file: event.file, line: event.line, function: event.function)
        if sendNative(fields) { return }
        writeLine(JournalFormat.line(level: event.level, message: "\(event.message)", label: label, metadata: merged))
    }
}

/// One `NAME=value` field of a journal entry.
package struct JournalField: Sendable, Equatable, CustomStringConvertible {
    package var name: String
    package var value: String
    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
    package var description: String { "\(name)=\(value)" }

    /// journald's native socket, where `sd_journal_sendv` writes.
    static let socketPath = "/run/systemd/journal/socket"

    /// Sends the fields as one entry with `sd_journal_sendv` (the variadic
    /// `sd_journal_send` cannot be called from Swift); false when the journal
    /// socket is absent or refuses the entry.
    static func send(_ fields: [JournalField]) -> Bool {
        // sd_journal_sendv reports success when the socket does not exist
        // (it drops the entry silently), so that case is looked for here.
        guard access(socketPath, W_OK) == 0 else { return false }
        // One buffer for all fields, so that every iovec points into memory
        // that lives for the call.
        var bytes: [UInt8] = []
        var ranges: [(start: Int, count: Int)] = []
        for field in fields {
            let start = bytes.count
            bytes += field.name.utf8
            bytes.append(UInt8(ascii: "="))
            bytes += field.value.utf8
            ranges.append((start, bytes.count - start))
        }
        return bytes.withUnsafeMutableBytes { raw in
            var vectors = ranges.map { iovec(iov_base: raw.baseAddress! + $0.start, iov_len: $0.count) }
            return sd_journal_sendv(&vectors, Int32(vectors.count)) >= 0
        }
    }
}

/// The mapping from swift-log's entries to the journal's: pure, so tested alone.
package enum JournalFormat {
    /// The syslog priority (sd-daemon(3), syslog(3)) of a swift-log level.
    package static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// What the journal lists the entries under (`journalctl -t sysound`):
    /// the name systemd gives the service's own output.
    package static let identifier = "sysound"

    /// Fields the handler sets itself; metadata keys that map to one of them
    /// get a `SYSOUND_` prefix instead of replacing it.
    static let ownFields: Set<String> = [
        "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "SYSOUND_LOGGER",
    ]

    /// The journal field name for a metadata key: journald accepts upper-case
    /// letters, digits and `_`, starting with a letter, at most 64 bytes
    /// (a leading `_` marks the fields journald itself vouches for).
    package static func fieldName(_ key: String) -> String {
        func isLetter(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let bytes = key.uppercased().utf8.map { isLetter($0) || isDigit($0) ? $0 : UInt8(ascii: "_") }
        var name = String(decoding: bytes, as: UTF8.self)
        if !(bytes.first.map(isLetter) ?? false) || ownFields.contains(name) {
            name = "SYSOUND_" + name
        }
        return String(name.prefix(64))
    }

    /// The fields of one entry: message, priority, identifier, where in the
    /// code, the logger's label, then the metadata sorted by key.
    package static func fields(
        level: Logger.Level, message: String, label: String, metadata: Logger.Metadata,
        file: String, line: UInt, function: String
    ) -> [JournalField] {
        var fields = [
            JournalField("MESSAGE", message),
            JournalField("PRIORITY", String(priority(level))),
            JournalField("SYSLOG_IDENTIFIER", identifier),
            JournalField("CODE_FILE", file),
            JournalField("CODE_LINE", String(line)),
            JournalField("CODE_FUNC", function),
            JournalField("SYSOUND_LOGGER", label),
        ]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            fields.append(JournalField(fieldName(key), "\(value)"))
        }
        return fields
    }

    /// The stream form: `<N>label: message key=value …` and a newline,
    /// without a timestamp (journald adds its own). Each line of a
    /// multi-line message carries the prefix, as journald splits at newlines.
    package static func line(level: Logger.Level, message: String, label: String, metadata: Logger.Metadata) -> String {
        let prefix = "<\(priority(level))>"
        var text = label.isEmpty ? message : "\(label): \(message)"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { text += " \(key)=\(value)" }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n") + "\n"
    }
}

/// Whether the journal reads this process's standard error: systemd sets
/// `JOURNAL_STREAM=DEVICE:INODE` (decimal) of the stream it connected, and a
/// match with fd 2's own tells it apart from a variable merely inherited
/// by a process whose output was redirected (systemd.exec(5)).
package enum JournalStream {
    /// Whether journald reads this process's standard error, decided once.
    package static let isStandardError = isConnected(getenv("JOURNAL_STREAM").map { String(cString: $0) })

    package static func isConnected(_ value: String?, fd: Int32 = 2) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }
}
