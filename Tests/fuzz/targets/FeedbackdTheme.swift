// libFuzzer target: a feedbackd theme (JSON), read the way the D-Bus face
// does at start and on SIGHUP: parsed leniently, its parent looked up by name
// in a private theme directory (which holds one valid parent), merged, and
// every event's feedback turned into what sysound plays.
import Foundation
import SysoundConfig
import SysoundCore

nonisolated(unsafe) private var themeDirectory: String = {
    let dir = "/dev/shm/sysound-fuzz-feedbackd-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir + "/feedbackd/themes", withIntermediateDirectories: true)
    let parent = #"{"name": "default", "profiles": [{"name": "full", "feedbacks": [{"event-name": "p", "type": "Sound", "effect": "tap"}]}]}"#
    FileManager.default.createFile(atPath: dir + "/feedbackd/themes/default.json", contents: Data(parent.utf8))
    atexit { try? FileManager.default.removeItem(atPath: "/dev/shm/sysound-fuzz-feedbackd-\(getpid())") }
    return dir
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedbackdTheme(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let (file, problems) = FeedbackdThemeFile.parse(bytes, file: "fuzz.json")
    if file == nil && !problems.containsErrors { fatalError("nothing usable, yet no error") }
    for d in problems where d.message.isEmpty || d.file != "fuzz.json" { fatalError("diagnostic without a message or file: \(d)") }

    let dir = themeDirectory
    FileManager.default.createFile(atPath: dir + "/fuzz.json", contents: bytes)
    let environment = ["FEEDBACK_THEME": dir + "/fuzz.json", "XDG_DATA_DIRS": dir, "XDG_CONFIG_HOME": dir + "/none", "HOME": dir]
    let (theme, _) = FeedbackdTheme.load(name: "x", environment: environment)
    for event in theme.events {
        for level in FeedbackProfile.allCases {
            guard let feedbacks = theme.feedbacks(for: event, level: level) else { fatalError("a listed event \(event) is unknown") }
            for (_, feedback) in feedbacks {
                _ = feedback.summary
                guard let pattern = feedback.hapticPattern else { continue }
                // What the haptics engine will be given must be within its limits.
                if pattern.steps.isEmpty || pattern.steps.count > HapticPattern.maximumSteps || pattern.durationMs > HapticPattern.maximumTotalMs
                    || pattern.steps.contains(where: { $0.durationMs <= 0 || $0.durationMs > HapticPattern.maximumStepMs || !(0...1).contains($0.magnitude) })
                {
                    fatalError("vibration out of the engine's limits: \(pattern)")
                }
            }
        }
    }
    return 0
}
