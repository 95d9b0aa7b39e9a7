import Foundation
import SysoundCore

/// The distribution of one measurement: what every table row shows.
struct Summary: Codable, Sendable {
    var median: Double
    var p90: Double
    var p99: Double
    var min: Double
    var max: Double
    var n: Int

    /// Nearest-rank percentiles of `values`; nil when there are none.
    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        func rank(_ p: Double) -> Double { s[Swift.min(s.count - 1, Swift.max(0, Int((p * Double(s.count)).rounded(.up)) - 1))] }
        median = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        p90 = rank(0.90)
        p99 = rank(0.99)
        min = s[0]
        max = s[s.count - 1]
        n = s.count
    }
}

/// One line of the results table.
struct Row: Codable, Sendable {
    /// The figure's number ("1" … "15"), the one it is filed and rendered under.
    var figure: String
    var name: String
    var unit: String
    /// A distribution, or nil for a single derived value (`value`).
    var summary: Summary?
    var value: Double?
    /// Bootstrap 95 % confidence interval of the median (or of `value`).
    var ci95: [Double]? = nil
    var note: String?
}

/// A target (docs/latency.md, "What is asked of it") and whether this run met it.
struct TargetCheck: Codable, Sendable {
    var target: String
    var measured: String
    /// nil: not judged (smoke mode, or the figure was not measured).
    var met: Bool?
}

/// Everything one run produced; written as JSON and printed as a table.
struct Report: Codable, Sendable {
    var date: String
    var machine: String
    var mode: String
    /// The sound server measured on, as it names itself.
    var server: String
    var rows: [Row] = []
    var targets: [TargetCheck] = []
    /// Measurement problems: missed tones, unanswered requests, figures that failed.
    var problems: [String] = []
    var notes: [String] = []
    var seconds: Double = 0

    mutating func add(_ figure: String, _ name: String, unit: String, _ values: [Double], note: String? = nil) {
        rows.append(Row(figure: figure, name: name, unit: unit, summary: Summary(values), value: nil, note: note))
    }

    mutating func add(_ figure: String, _ name: String, unit: String, value: Double, note: String? = nil) {
        rows.append(Row(figure: figure, name: name, unit: unit, summary: nil, value: value.isFinite ? value : nil, note: note))
    }

    /// A distribution with the bootstrap 95 % interval of its median.
    mutating func addWithCI(_ figure: String, _ name: String, unit: String, _ values: [Double], note: String? = nil) {
        rows.append(Row(figure: figure, name: name, unit: unit, summary: Summary(values), value: nil,
                        ci95: Bootstrap.medianCI(values), note: note))
    }

    /// A derived value with its interval.
    mutating func add(_ figure: String, _ name: String, unit: String, value: Double, ci95: [Double]?, note: String? = nil) {
        rows.append(Row(figure: figure, name: name, unit: unit, summary: nil, value: value.isFinite ? value : nil,
                        ci95: ci95?.allSatisfy(\.isFinite) == true ? ci95 : nil, note: note))
    }

    func row(_ figure: String, _ name: String) -> Row? { rows.first { $0.figure == figure && $0.name == name } }

    /// The table as text: one line per row, distributions in columns.
    var table: String {
        var lines = ["sysound-bench \(mode) — \(date) — \(machine) — \(server)", ""]
        let header = ["fig", "measurement", "unit", "median", "95% CI", "p90", "p99", "min", "max", "n"]
        var cells: [[String]] = [header]
        for r in rows {
            let ci = r.ci95.map { "\(fmt($0[0]))–\(fmt($0[1]))" } ?? ""
            if let s = r.summary {
                cells.append([r.figure, r.name, r.unit, fmt(s.median), ci, fmt(s.p90), fmt(s.p99), fmt(s.min), fmt(s.max), "\(s.n)"])
            } else {
                cells.append([r.figure, r.name, r.unit, r.value.map(fmt) ?? "—", ci, "", "", "", "", ""])
            }
        }
        let widths = header.indices.map { i in cells.map { $0[i].count }.max() ?? 0 }
        for (k, row) in cells.enumerated() {
            let text = row.enumerated().map { i, c in
                i < 3 ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                      : String(repeating: " ", count: widths[i] - c.count) + c
            }.joined(separator: "  ")
            lines.append(text)
            if k == 0 { lines.append(String(repeating: "-", count: text.count)) }
        }
        let notes = rows.compactMap { r in r.note.map { "  [\(r.figure)] \(r.name): \($0)" } }
        if !notes.isEmpty { lines += ["", "notes:"] + notes }
        if !targets.isEmpty {
            lines += ["", "targets:"]
            for t in targets {
                let verdict = t.met.map { $0 ? "met   " : "MISSED" } ?? "n/a   "
                lines.append("  \(verdict)  \(t.target): \(t.measured)")
            }
        }
        if !self.notes.isEmpty { lines += [""] + self.notes.map { "note: \($0)" } }
        if !problems.isEmpty { lines += ["", "problems:"] + problems.map { "  - \($0)" } }
        lines.append("")
        lines.append(String(format: "finished in %.1f s", seconds))
        return lines.joined(separator: "\n")
    }

    func writeJSON(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}

/// Three significant digits, without exponent for the ranges the bench sees.
func fmt(_ v: Double) -> String {
    if v == 0 { return "0" }
    let a = abs(v)
    if a >= 1000 { return String(format: "%.0f", v) }
    if a >= 100 { return String(format: "%.1f", v) }
    if a >= 10 { return String(format: "%.2f", v) }
    if a >= 1 { return String(format: "%.3f", v) }
    return String(format: "%.4f", v)
}

/// Percentile bootstrap of medians (2000 resamples, a fixed seed so a run's
/// intervals can be reproduced from its JSON's values).
enum Bootstrap {
    static let resamples = 2000

    static func medianCI(_ values: [Double]) -> [Double]? {
        guard values.count >= 2 else { return nil }
        var rng = SplitMix64(seed: 8)
        return interval((0..<resamples).map { _ in median(resample(values, &rng)) })
    }

    /// The interval of median(a) / median(b), each resampled on its own.
    static func ratioCI(_ a: [Double], _ b: [Double]) -> [Double]? {
        guard a.count >= 2, b.count >= 2 else { return nil }
        var rng = SplitMix64(seed: 9)
        return interval((0..<resamples).map { _ in median(resample(a, &rng)) / median(resample(b, &rng)) })
    }

    /// The interval of median(a) − median(b), each resampled on its own.
    static func differenceCI(_ a: [Double], _ b: [Double]) -> [Double]? {
        guard a.count >= 2, b.count >= 2 else { return nil }
        var rng = SplitMix64(seed: 10)
        return interval((0..<resamples).map { _ in median(resample(a, &rng)) - median(resample(b, &rng)) })
    }

    static func median(_ v: [Double]) -> Double { Summary(v)!.median }

    private static func resample(_ v: [Double], _ rng: inout SplitMix64) -> [Double] {
        (0..<v.count).map { _ in v[Int(rng.next() % UInt64(v.count))] }
    }

    private static func interval(_ estimates: [Double]) -> [Double] {
        let s = estimates.sorted()
        return [s[Int(0.025 * Double(s.count))], s[Int(0.975 * Double(s.count)) - 1]]
    }
}
