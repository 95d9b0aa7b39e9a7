/// Debian's feedbackd client `fbcli -E EVENT`, as a user runs it.
///
/// fbcli ends its feedback when its standard input closes (a user pressing
/// RETURN), and a feedbackd client that exits ends its events too: the input
/// stays open up to 3 s (on a loaded machine fbcli itself can take a second
/// to start). fbcli exits by itself when the event has ended. The `sleep`
/// that holds the input is started by a subshell that ends at once, so the
/// pipeline, and the call, wait for fbcli only: a short event's call takes
/// the event's time, not 3 s (`sleep 3 | fbcli` waits for both).
package enum Fbcli {
    package static func trigger(_ event: String, timeout: Double = 20) throws -> Spawned.Result {
        try Spawned.run(
            "/usr/bin/env", ["sh", "-c", "(sleep 3 </dev/null 2>/dev/null &) | fbcli -E \"$0\"", event],
            timeout: timeout)
    }
}
