import Glibc
import SysoundClient
import SysoundCore

/// `sysound play NAME [--state-dir DIR] [--app ID]` with a daemon up: one
/// `connect`, `send`, `recv`.
enum FastPath {
    enum Outcome {
        /// The request reached a daemon: exit with this status.
        case answered(Int32)
        /// No daemon listens (or the socket path is unusable): the embedded
        /// engine plays it, given these arguments (`sysound-engine play`).
        case noDaemon(engineArguments: [String])
    }

    /// What became of the request; nil when the command has another shape
    /// (the full CLI takes it). Once sent, a request is never sent again:
    /// asking twice is not harmless (a daemon that was only slow plays the
    /// sound twice). An error reply, a timeout (75) and a lost connection
    /// (70) are reported here.
    static func play(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, count: Int) -> Outcome? {
        func argument(_ i: Int, is text: String) -> Bool { argv[i].map { strcmp($0, text) == 0 } ?? false }
        guard count >= 3, count % 2 == 1, count <= 7, argument(1, is: "play"),
              let nameArgument = argv[2], nameArgument[0] != CChar(UInt8(ascii: "-"))
        else { return nil }
        // Each option at most once; anything else (or a bad app id, whose
        // message is the full CLI's) goes to the full CLI.
        var stateDirectory: String?, app: String?
        for i in stride(from: 3, to: count, by: 2) {
            guard let value = argv[i + 1].map({ String(cString: $0) }) else { return nil }
            if argument(i, is: "--state-dir"), stateDirectory == nil {
                stateDirectory = value
            } else if argument(i, is: "--app"), app == nil, PlayRequest.isValidApp(value) {
                app = value
            } else {
                return nil
            }
        }
        let name = String(cString: nameArgument)
        let socket = StateDirectoryLocation.path(explicit: stateDirectory) + "/socket"
        let reply: Reply
        do {
            reply = try DaemonClient(socketPath: socket).send(.play(PlayRequest(.name(name), app: app)))
        } catch {
            guard !error.reachedNoDaemon else {
                return .noDaemon(engineArguments: ["play", name] + (stateDirectory.map { ["--state-dir", $0] } ?? [])
                    + (app.map { ["--app", $0] } ?? []))
            }
            standardError("sysound: cannot play \(name): \(error)")
            return .answered(error.exitStatus)
        }
        switch reply {
        case .ok:
            return .answered(0)
        case .error(let code, let message):
            standardError("sysound: cannot play \(name): \(message)")
            return .answered(code.exitStatus)
        }
    }
}

/// Writes one line to standard error with `write(2)`: unbuffered, so it is out before `exit`.
func standardError(_ line: String) {
    var bytes = Array((line + "\n").utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if n > 0 {
            bytes = bytes.dropFirst(n)
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}
