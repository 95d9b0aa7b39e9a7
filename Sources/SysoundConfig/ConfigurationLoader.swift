import FoundationEssentials
import Glibc
import SysoundCore

/// Why the configuration could not be loaded.
package enum ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `--config FILE` names a file that does not exist.
    case notFound(path: String)
    /// No data directory (holding `config/sysound.toml` and `Sounds/`) was found.
    case noDataDirectory(searched: [String])
    /// The file has problems; every one is listed.
    case invalid(file: String, diagnostics: [Diagnostic])

    package var description: String {
        switch self {
        case .notFound(let path):
            return "configuration file \(path) does not exist; give an existing file to --config, or leave it out to use the default search"
        case .noDataDirectory(let searched):
            return "cannot find sysound's data directory (config/sysound.toml and Sounds/); looked in: \(searched.joined(separator: ", ")). Set SYSOUND_DATA_DIR to the directory that holds them."
        case .invalid(let file, let diagnostics):
            let errors = diagnostics.filter { $0.severity == .error }
            return "configuration \(file) has \(errors.count) problem\(errors.count == 1 ? "" : "s"); fix them (run `sysound check \(file)`):\n"
                + errors.map { "  \($0)" }.joined(separator: "\n")
        }
    }
}

/// Where the configuration and the shipped data are found.
package struct ConfigurationSearch: Sendable {
    package var environment: [String: String]
    /// The running executable (for an installed layout), if known.
    package var executablePath: String?

    package init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executablePath: String? = ConfigurationSearch.currentExecutable()
    ) {
        self.environment = environment
        self.executablePath = executablePath
    }

    /// `/proc/self/exe`, resolved; nil where there is none.
    package static func currentExecutable() -> String? {
        // No /proc: argv[0], as documented.
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first
    }

    /// The shipped default configuration, relative to a data directory.
    package static let defaultConfigPath = "config/sysound.toml"

    /// Directories that may be the data directory, in the order they are tried:
    /// `$SYSOUND_DATA_DIR`; `PREFIX/share/sysound` of the prefix the executable
    /// is installed under (`InstallLayout`: `PREFIX/bin/` or `PREFIX/libexec/sysound/`),
    /// or else the executable's directory and its ancestors (a source tree:
    /// `.build/debug/sysound` → the package root) and this source file's
    /// package root; then `/usr/local/share/sysound` and `/usr/share/sysound`.
    /// An installed executable never reads the tree it was built from.
    package func dataDirectoryCandidates() -> [String] {
        var candidates: [String] = []
        if let dir = environment["SYSOUND_DATA_DIR"], !dir.isEmpty { return [dir] }
        if let prefix = installPrefix {
            candidates.append(InstallLayout.path(prefix, InstallLayout.dataSubdirectory))
        } else {
            if let exe = executablePath {
                var dir = Paths.directory(of: exe)
                for _ in 0..<6 where dir != "/" && !dir.isEmpty {
                    candidates.append(dir)
                    dir = Paths.directory(of: dir)
                }
            }
            // Sources/SysoundConfig/ConfigurationLoader.swift → the package root.
            candidates.append(Paths.directory(of: Paths.directory(of: Paths.directory(of: #filePath))))
        }
        candidates += ["/usr/local/share/sysound", "/usr/share/sysound"]
        return candidates
    }

    /// The first candidate that holds the shipped configuration.
    package func dataDirectory() throws(ConfigurationError) -> String {
        let candidates = dataDirectoryCandidates()
        for dir in candidates where Paths.isFile(Paths.join(dir, Self.defaultConfigPath)) {
            return Paths.standardize(dir)
        }
        throw .noDataDirectory(searched: candidates)
    }

    /// The prefix the running executable is installed under, if it is installed.
    var installPrefix: String? { executablePath.flatMap(InstallLayout.prefix(ofExecutable:)) }

    /// The configuration files tried, in order, without the override: the
    /// user's, then the administrator's (`SYSCONFDIR/sysound/sysound.toml` of
    /// the installed prefix, and `/etc/sysound/sysound.toml`), then the shipped one.
    package func configurationCandidates(dataDirectory: String?) -> [String] {
        var files: [String] = []
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            files.append(Paths.join(xdg, "sysound/sysound.toml"))
        } else if let home = environment["HOME"], !home.isEmpty {
            files.append(Paths.join(home, ".config/sysound/sysound.toml"))
        }
        let system = "/etc/sysound/sysound.toml"
        if let prefix = installPrefix {
            let own = Paths.join(InstallLayout.sysconfDirectory(prefix: prefix), "sysound/sysound.toml")
            if own != system { files.append(own) }
        }
        files.append(system)
        if let dataDirectory { files.append(Paths.join(dataDirectory, Self.defaultConfigPath)) }
        return files
    }

    /// The file to load: `override` if given (it must exist), else the first
    /// existing file of `configurationCandidates`.
    package func configurationFile(override: String?) throws(ConfigurationError) -> String {
        if let override {
            guard FileManager.default.fileExists(atPath: override) else { throw .notFound(path: override) }
            return override
        }
        let data = try dataDirectory()
        let candidates = configurationCandidates(dataDirectory: data)
        return candidates.first { FileManager.default.fileExists(atPath: $0) } ?? candidates.last!
    }
}

extension SysoundConfiguration {
    /// Loads the configuration: `path` (from `--config`) or the first file of
    /// the search order. Refuses a file with any error, listing them all.
    package static func load(
        path: String? = nil, search: ConfigurationSearch = ConfigurationSearch()
    ) throws(ConfigurationError) -> SysoundConfiguration {
        let file = try search.configurationFile(override: path)
        let (config, diagnostics) = try read(file: file, search: search)
        if diagnostics.containsErrors { throw .invalid(file: file, diagnostics: diagnostics) }
        return config
    }

    /// Reads `file` leniently: a configuration (bad values replaced by their
    /// defaults) and every problem found. A file that does not parse gives
    /// the defaults and the syntax diagnostic.
    package static func read(
        file: String, search: ConfigurationSearch = ConfigurationSearch()
    ) throws(ConfigurationError) -> (SysoundConfiguration, [Diagnostic]) {
        let data = try search.dataDirectory()
        switch TOMLDocument.read(path: file) {
        case .failure(let diagnostic):
            var config = SysoundConfiguration(dataDirectory: data)
            config.file = file
            return (config, [diagnostic])
        case .success(let document):
            let config = ConfigurationParser.parse(document, dataDirectory: data, environment: search.environment)
            return (config, document.diagnostics)
        }
    }

    /// Parses configuration text (for tests and for `check` of a pipe).
    package static func parse(
        text: String, file: String, dataDirectory: String, environment: [String: String] = [:]
    ) -> (SysoundConfiguration, [Diagnostic]) {
        switch TOMLDocument.parse(text: text, file: file) {
        case .failure(let diagnostic):
            var config = SysoundConfiguration(dataDirectory: dataDirectory)
            config.file = file
            return (config, [diagnostic])
        case .success(let document):
            return (ConfigurationParser.parse(document, dataDirectory: dataDirectory, environment: environment), document.diagnostics)
        }
    }
}
