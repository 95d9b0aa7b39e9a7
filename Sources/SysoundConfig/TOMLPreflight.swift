/// Refuses TOML text that would crash the parser underneath TOMLKit.
///
/// toml++ 3 (inside TOMLKit) asserts — aborting the process in a debug build,
/// undefined behaviour with NDEBUG — on two kinds of invalid TOML, both found
/// by Tests/fuzz (Config and Theme targets): a table header whose first key
/// starts with anything but a bare-key character or a quote (`[é]`, `[[ =]]`,
/// `[.a]`, `[\u{1}]`, also after a byte-order mark), and a `}` where an array
/// expects its next element (`s = [}`, `s = [1, }`). Both are invalid TOML
/// anyway, so refusing them before toml++ sees them loses nothing valid.
enum TOMLPreflight {
    enum Problem: Equatable {
        case headerStart
        case braceInArray
    }

    /// The first construct toml++ cannot take, with its 1-based line and
    /// column, or nil if there is none. Strings (also multi-line ones) and
    /// comments are skipped: `[` inside them is no header.
    static func problem(in text: String) -> (problem: Problem, line: Int, column: Int)? {
        enum Mode { case code, comment, basic, literal, multiBasic, multiLiteral }
        let s = Array(text.unicodeScalars)
        var mode = Mode.code
        var line = 1, lineStart = 0
        // After a header's `[` (or `[[`) and blanks: where its first key must start.
        var headerBrackets = 0, atLineStart = true, headerLine = false
        // Open arrays (`[`) and inline tables (`{`) of values, innermost last:
        // a `[` at a line start inside one is a value.
        var open: [Unicode.Scalar] = []
        // Right after an array's `[` or `,`: where its next element (or `]`) must come.
        var expectingElement = false
        // toml++ skips a byte-order mark before the first line.
        var i = s.first == "\u{FEFF}" ? 1 : 0
        lineStart = i
        func starts(_ quote: Unicode.Scalar, at j: Int) -> Bool {
            j + 2 < s.count && s[j] == quote && s[j + 1] == quote && s[j + 2] == quote
        }
        while i < s.count {
            let c = s[i]
            if c == "\n" {
                if mode == .code && headerBrackets > 0 { return (.headerStart, line, i - lineStart + 1) }
                line += 1
                lineStart = i + 1
                if mode == .comment || mode == .basic || mode == .literal { mode = .code }
                if mode == .code { headerBrackets = 0; atLineStart = true; headerLine = false }
                i += 1
                continue
            }
            switch mode {
            case .comment:
                break
            case .basic:
                if c == "\\" { i += 1 } else if c == "\"" { mode = .code }
            case .literal:
                if c == "'" { mode = .code }
            case .multiBasic:
                if c == "\\" { i += 1 } else if starts("\"", at: i) { mode = .code; i += 2 }
            case .multiLiteral:
                if starts("'", at: i) { mode = .code; i += 2 }
            case .code:
                if atLineStart && (c == " " || c == "\t") { break }
                if atLineStart && c == "[" && open.isEmpty {
                    atLineStart = false; headerBrackets = 1; headerLine = true
                    break
                }
                atLineStart = false
                if headerBrackets > 0 {
                    if c == " " || c == "\t" { break }
                    if c == "[" && headerBrackets == 1 { headerBrackets = 2; break }
                    headerBrackets = 0
                    if !(isBareKey(c) || c == "\"" || c == "'" || c == "]") { return (.headerStart, line, i - lineStart + 1) }
                }
                if expectingElement && c != " " && c != "\t" && c != "\r" && c != "#" {
                    if c == "}" { return (.braceInArray, line, i - lineStart + 1) }
                    expectingElement = false
                }
                if c == "#" {
                    mode = .comment
                } else if starts("\"", at: i) {
                    mode = .multiBasic; i += 2
                } else if starts("'", at: i) {
                    mode = .multiLiteral; i += 2
                } else if c == "\"" {
                    mode = .basic
                } else if c == "'" {
                    mode = .literal
                } else if !headerLine && (c == "[" || c == "{") {
                    open.append(c)
                    expectingElement = c == "["
                } else if !headerLine && (c == "]" || c == "}") {
                    _ = open.popLast()
                } else if c == "," && open.last == "[" {
                    expectingElement = true
                }
            }
            i += 1
        }
        if mode == .code && headerBrackets > 0 { return (.headerStart, line, i - lineStart + 1) }
        return nil
    }

    /// TOML's bare-key characters: ASCII letters, digits, `-` and `_`.
    static func isBareKey(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F: true
        default: false
        }
    }
}
