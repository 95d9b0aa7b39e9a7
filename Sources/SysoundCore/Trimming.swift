extension StringProtocol {
    /// The text without the whitespace at either end: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` is used for here, in the
    /// modules that link only FoundationEssentials (which has no
    /// `CharacterSet` trimming; Foundation's own brings its
    /// internationalization and ICU into the executable).
    package func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first...last])
    }
}
