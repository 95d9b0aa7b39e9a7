import Logging
import SysoundCore

/// A swift-log handler that keeps what is logged, for tests that check a
/// message: `Logger(label: "x", factory: capture.factory)`.
package final class LogCapture: Sendable {
    private let lines = Locked<[String]>([])

    package init() {}

    /// Every message so far, as "LEVEL message".
    package var messages: [String] { lines.withLock { $0 } }

    package var logger: Logger { Logger(label: "test") { _ in Handler(capture: self) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            capture.lines.withLock { $0.append("\(event.level) \(event.message)") }
        }
    }
}
