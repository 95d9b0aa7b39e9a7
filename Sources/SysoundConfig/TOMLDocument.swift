import Foundation
import TOMLKit

/// A parsed TOML file with what is needed to report problems in it: its
/// path, the line of every key (TOMLKit gives positions only for syntax
/// errors), and the diagnostics found so far.
final class TOMLDocument {
    let file: String
    let root: TOMLTable
    private let lines: KeyLines
    private(set) var diagnostics: [Diagnostic] = []

    private init(file: String, root: TOMLTable, text: String) {
        self.file = file
        self.root = root
        self.lines = KeyLines(text: text)
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
        var table: [String] = []
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") {
                let inner = line.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.components(String(inner))
                record(table, lineNumber)
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = Self.components(String(line[..<equals]))
                if !key.isEmpty { record(table + key, lineNumber) }
            }
        }
    }

    private mutating func record(_ path: [String], _ line: Int) {
        let key = path.joined(separator: ".")
        if lineOf[key] == nil { lineOf[key] = line }
    }

    /// Splits `a."b.c".d` into components, dropping quotes and spaces.
    static func components(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for c in text {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "." {
                parts.append(current)
                current = ""
            } else if c != " " && c != "\t" {
                current.append(c)
            }
        }
        parts.append(current)
        return parts.filter { !$0.isEmpty }
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
