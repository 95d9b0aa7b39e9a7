import Foundation

/// Polls `condition` every 10 ms until it holds or `timeout` seconds pass;
/// returns whether it held.
package func eventually(_ timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if condition() { return true }
        usleep(10_000)
    } while Date() < deadline
    return condition()
}
