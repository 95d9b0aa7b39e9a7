import Foundation

/// One test of this test bundle, run again alone in a child process with
/// `environment` added: for what only a process's end shows (its exit
/// status, what its libraries print at exit). The test tells it is the child
/// by that environment. Returns the exit status (negative: the signal that
/// ended it) and its standard error.
package func runThisTestAgain(_ test: String, environment: [String: String]) throws -> (status: Int32, stderr: String) {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = [test]
    child.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let stderr = Pipe()
    child.standardOutput = FileHandle.nullDevice
    child.standardError = stderr
    try child.run()
    let said = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    let status = child.terminationReason == .uncaughtSignal ? -child.terminationStatus : child.terminationStatus
    return (status, said)
}
