#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Logs go to standard error: warnings by default, information with
/// --verbose and for the daemon; SYSOUND_LOG_LEVEL (trace…critical) overrides.
/// Under journald (JOURNAL_STREAM names standard error) they go to the
/// journal with their priority and fields instead (JournalLogHandler).
package func bootstrapLogging(verbose: Bool) {
    var level: Logger.Level = verbose ? .info : .warning
    if let text = getenv("SYSOUND_LOG_LEVEL").map({ String(cString: $0) }), let wanted = Logger.Level(rawValue: text) {
        level = wanted
    }
    let threshold = level
    let journal = JournalStream.isStandardError
    LoggingSystem.bootstrap { label in
        if journal {
            var handler = JournalLogHandler(label: label)
            handler.logLevel = threshold
            return handler
        }
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = threshold
        return handler
    }
}
