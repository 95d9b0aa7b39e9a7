#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Where the library logs when the app gave no logger: nowhere. An app's
/// standard error is the app's; a library that writes its device choices
/// there (swift-log's default handler prints `info` and up) puts noise in
/// front of the app's users. The app asks for the lines by passing a logger
/// to `SoundService(logger:)`, and a developer by setting SYSOUND_LOG_LEVEL
/// (trace…critical), which sends them to standard error at that level.
enum LibraryLog {
    static func defaultLogger() -> Logger {
        guard let text = getenv("SYSOUND_LOG_LEVEL").map({ String(cString: $0) }),
              let level = Logger.Level(rawValue: text)
        else { return Logger(label: "sysound", factory: { _ in SwiftLogNoOpLogHandler() }) }
        return Logger(label: "sysound", factory: { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        })
    }

    /// `logger`'s handler under the audio engine's label, so the engine logs
    /// where the service does.
    static func audio(_ logger: Logger) -> Logger {
        Logger(label: "sysound.audio", factory: { _ in logger.handler })
    }
}
