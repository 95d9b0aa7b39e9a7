import FoundationEssentials
import Glibc
import TOMLKit

/// A parsed TOML file with what is needed to report problems in it: its
/// path, the line of every key (TOMLKit gives positions only for syntax
/// errors), and the diagnostics found so far.
final class TOMLDocument {
    let file: String
    let root: TOMLTable
    private let text: String
    /// Scanned at the first line asked for: a file without problems in it
    /// (the daemon's and every one-shot `sysound play`'s common case) needs none.
    private lazy var lines = KeyLines(text: text)
    private(set) var diagnostics: [Diagnostic] = []

    private init(file: String, root: TOMLTable, text: String) {
        self.file = file
        self.root = root
        self.text = text
    }

    /// Parses `text` (named `file` in diagnostics) with TOMLKit's `TOMLTable(string:)`.
    /// On a syntax error returns the diagnostic, with the parser's line.
    static func parse(text: String, file: String) -> Result<TOMLDocument, Diagnostic> {
        // Before TOMLKit: toml++ aborts on some invalid TOML (TOMLPreflight).
        if let (problem, line, column) = TOMLPreflight.problem(in: text) {
            let message = switch problem {
            case .headerStart:
                "a table header must start with a name of letters, digits, \"-\" and \"_\", or a quoted one (column \(column)); e.g. [audio] or [\"é\"]"
            case .braceInArray:
                "\"}\" where an array expects a value or \"]\" (column \(column)); e.g. names = [\"tap\", \"click\"]"
            }
            return .failure(Diagnostic(.syntax, file: file, line: line, message: message))
        }
        do {
            return .success(TOMLDocument(file: file, root: try TOMLTable(string: text), text: text))
        } catch let error as TOMLParseError {
            return .failure(Diagnostic(
                .syntax, file: file, line: error.source.begin.line,
                message: "\(error.description) (column \(error.source.begin.column)); the file must be valid TOML (https://toml.io)"))
        } catch {
            return .failure(Diagnostic(.syntax, file: file, message: "cannot parse as TOML: \(error)"))
        }
    }

    /// Reads and parses a file; an unreadable file is a diagnostic too.
    static func read(path: String) -> Result<TOMLDocument, Diagnostic> {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            return .failure(Diagnostic(
                exists ? .unreadable : .missingFile, file: path,
                message: exists ? "cannot read the file; check its permissions" : "no such file"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(Diagnostic(.unreadable, file: path, message: "the file is not UTF-8 text; TOML files must be UTF-8"))
        }
        return parse(text: text, file: path)
    }

    /// Records a problem at `key` (a dotted path), with the key's line.
    func report(_ kind: Diagnostic.Kind, key: String?, _ message: String, severity: Diagnostic.Severity = .error) {
        diagnostics.append(Diagnostic(
            kind, severity: severity, file: file, line: key.flatMap { lines.line(of: $0) }, key: key, message: message))
    }

    /// The line of `key` (dotted path), where the scan found it.
    func line(of key: String) -> Int? { lines.line(of: key) }

    /// A reader for the root table.
    var rootReader: TableReader { TableReader(table: root, path: nil, document: self) }
}

/// Where each key of a TOML text is, found by a light scan of the lines:
/// table headers (`[a.b]`, `[[a]]`) and `key =` assignments (dotted keys too).
/// Good enough to point at a line; parsing proper is TOMLKit's job.
struct KeyLines {
    private var lineOf: [String: Int] = [:]

    init(text: String) {
        // Over the UTF-8 bytes: every character the scan looks for is ASCII,
        // and walking Characters (grapheme breaking) cost the engine's start
        // more than parsing the TOML itself.
        var table: [String] = []
        var lineNumber = 0
        for raw in text.utf8.split(separator: Self.newline, omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.drop { $0 == Self.space || $0 == Self.tab }
            if line.first == Self.openBracket {
                let inner = line.drop { $0 == Self.openBracket }.prefix { $0 != Self.closeBracket }
                table = Self.components(inner)
                record(table, lineNumber)
            } else if line.first != Self.hash, let equals = line.firstIndex(of: Self.equals) {
                let key = Self.components(line[..<equals])
                if !key.isEmpty { record(table + key, lineNumber) }
            }
        }
    }

    private static let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
    private static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]"), hash = UInt8(ascii: "#")
    private static let equals = UInt8(ascii: "="), dot = UInt8(ascii: "."), doubleQuote = UInt8(ascii: "\""), singleQuote = UInt8(ascii: "'")

    private mutating func record(_ path: [String], _ line: Int) {
        let key = path.joined(separator: ".")
        if lineOf[key] == nil { lineOf[key] = line }
    }

    /// Splits `a."b.c".d` into components, dropping quotes and spaces.
    static func components(_ text: String) -> [String] { components(text.utf8[...]) }

    static func components(_ text: some Collection<UInt8>) -> [String] {
        var parts: [String] = []
        var current: [UInt8] = []
        var quote: UInt8?
        for c in text {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == doubleQuote || c == singleQuote {
                quote = c
            } else if c == dot {
                if !current.isEmpty { parts.append(String(decoding: current, as: UTF8.self)) }
                current.removeAll(keepingCapacity: true)
            } else if c != space && c != tab {
                current.append(c)
            }
        }
        if !current.isEmpty { parts.append(String(decoding: current, as: UTF8.self)) }
        return parts
    }

    /// The line of `key`, or of its nearest enclosing table that has one.
    func line(of key: String) -> Int? {
        var path = Self.components(key)
        while !path.isEmpty {
            if let line = lineOf[path.joined(separator: ".")] { return line }
            path.removeLast()
        }
        return nil
    }
}
