/// Close matches for a mistyped name, for "did you mean" in error messages.
enum NameSuggestions {
    /// Up to `limit` candidates closest to `name`, best first: small edit
    /// distance, or one containing the other (`warn` → `warning`).
    static func closest(to name: String, among candidates: some Sequence<String>, limit: Int = 5) -> [String] {
        let target = Array(name.lowercased())
        let threshold = max(2, target.count / 3)
        var scored: [(Int, String)] = []
        for candidate in Set(candidates) where candidate != name {
            let lower = candidate.lowercased()
            var distance = editDistance(target, Array(lower))
            // `firstRange(of:)`, the standard library's: Foundation's `contains` (TOMLKit brings it in) would link ICU.
            if target.count >= 3 && (lower.firstRange(of: target) != nil || String(target).firstRange(of: lower) != nil) {
                distance = min(distance, 1)
            }
            if distance <= threshold { scored.append((distance, candidate)) }
        }
        return scored.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }.prefix(limit).map(\.1)
    }

    /// Levenshtein distance, two rows.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = Array(repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// ", did you mean a, b?" or "".
    static func phrase(for name: String, among candidates: some Sequence<String>) -> String {
        let close = closest(to: name, among: candidates)
        return close.isEmpty ? "" : "; did you mean \(close.map { "\"\($0)\"" }.joined(separator: ", "))?"
    }
}
