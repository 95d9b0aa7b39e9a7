import TOMLKit

/// Reads typed values out of one TOML table, reporting every problem to the
/// document instead of stopping at the first: a wrong value is reported and
/// its default used, so one `check` run lists everything.
final class TableReader {
    let table: TOMLTable
    /// The table's dotted path (`audio`), nil for the root.
    let path: String?
    let document: TOMLDocument
    private var consumed: Set<String> = []

    init(table: TOMLTable, path: String?, document: TOMLDocument) {
        self.table = table
        self.path = path
        self.document = document
    }

    /// The dotted path of `key` in this table.
    func keyPath(_ key: String) -> String { path.map { "\($0).\(key)" } ?? key }

    var keys: [String] { table.keys }

    private func value(_ key: String) -> TOMLValueConvertible? {
        consumed.insert(key)
        return table[key]
    }

    private func wrongType(_ key: String, _ found: TOMLValueConvertible, expected: String) {
        document.report(.wrongType, key: keyPath(key), "expected \(expected), found \(Self.describe(found))")
    }

    static func describe(_ v: TOMLValueConvertible) -> String {
        switch v.type {
        case .string: "the string \"\(v.string ?? "")\""
        case .int: "the integer \(v.int ?? 0)"
        case .double: "the number \(v.double ?? 0)"
        case .bool: "\(v.bool ?? false)"
        case .array: "an array"
        case .table: "a table"
        default: "a \(v.type)"
        }
    }

    func int(_ key: String, in range: ClosedRange<Int>, default fallback: Int, unit: String = "") -> Int {
        guard let v = value(key) else { return fallback }
        guard let i = v.int else {
            wrongType(key, v, expected: "a whole number from \(range.lowerBound) to \(range.upperBound)\(unit)")
            return fallback
        }
        guard range.contains(i) else {
            document.report(.outOfRange, key: keyPath(key), "\(i) is out of range; expected \(range.lowerBound) to \(range.upperBound)\(unit)")
            return fallback
        }
        return i
    }

    /// A number; integers are accepted too (`gain = 1`).
    func double(_ key: String, in range: ClosedRange<Double>, default fallback: Double, unit: String = "") -> Double {
        guard let v = value(key) else { return fallback }
        guard let d = v.double ?? v.int.map(Double.init) else {
            wrongType(key, v, expected: "a number from \(range.lowerBound) to \(range.upperBound)\(unit)")
            return fallback
        }
        guard d.isFinite, range.contains(d) else {
            document.report(.outOfRange, key: keyPath(key), "\(d) is out of range; expected \(range.lowerBound) to \(range.upperBound)\(unit)")
            return fallback
        }
        return d
    }

    func bool(_ key: String, default fallback: Bool) -> Bool {
        guard let v = value(key) else { return fallback }
        guard let b = v.bool else {
            wrongType(key, v, expected: "true or false (without quotes)")
            return fallback
        }
        return b
    }

    func string(_ key: String, default fallback: String?, expected: String = "a string in quotes") -> String? {
        guard let v = value(key) else { return fallback }
        guard let s = v.string else {
            wrongType(key, v, expected: expected)
            return fallback
        }
        return s
    }

    func strings(_ key: String, default fallback: [String], expected: String = "an array of strings") -> [String] {
        guard let v = value(key) else { return fallback }
        guard let array = v.array else {
            wrongType(key, v, expected: expected + ", e.g. [\"a\", \"b\"]")
            return fallback
        }
        var result: [String] = []
        for (i, element) in array.enumerated() {
            guard let s = element.string else {
                document.report(.wrongType, key: keyPath(key), "element \(i + 1) is \(Self.describe(element)); expected \(expected)")
                continue
            }
            result.append(s)
        }
        return result
    }

    /// The sub-table `key`, or nil when absent (or of another type, reported).
    func table(_ key: String) -> TableReader? {
        guard let v = value(key) else { return nil }
        guard let t = v.table else {
            wrongType(key, v, expected: "a table ([\(keyPath(key))])")
            return nil
        }
        return TableReader(table: t, path: keyPath(key), document: document)
    }

    /// Reports every key of this table that was never read.
    func reportUnknownKeys(known: [String]) {
        for key in table.keys where !consumed.contains(key) {
            let place = path.map { "in [\($0)]" } ?? "at the top level"
            let expected = known.isEmpty ? "" : "; known keys \(place): \(known.joined(separator: ", "))"
            document.report(
                .unknownKey, key: keyPath(key),
                "unknown key\(NameSuggestions.phrase(for: key, among: known))\(expected)")
        }
    }
}
