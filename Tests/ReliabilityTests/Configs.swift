/// A config whose theme is the shipped Sounds/ plus a directory of test sounds.
enum Configs {
    static func theme(_ extraDirectory: String? = nil, server: String = "") -> String {
        let paths = ([extraDirectory].compactMap { $0 } + ["@SOUNDS@"]).map { "\"\($0)\"" }.joined(separator: ", ")
        return """
        [theme]
        paths = [\(paths)]
        [xdg]
        fallback = false
        [server]
        \(server)
        """
    }
}
