#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Logs go to standard error: warnings by default, information with
/// --verbose and for the daemon; SYSOUND_LOG_LEVEL (trace…critical) overrides.
public func bootstrapLogging(verbose: Bool) {
    var level: Logger.Level = verbose ? .info : .warning
    if let text = getenv("SYSOUND_LOG_LEVEL").map({ String(cString: $0) }), let wanted = Logger.Level(rawValue: text) {
        level = wanted
    }
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
}
