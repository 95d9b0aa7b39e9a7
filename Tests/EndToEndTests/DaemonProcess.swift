import Foundation
import XCTest

/// A real `sysound serve` in a subprocess with its own state directory.
final class DaemonProcess {
    let cli: CLI
    let process: Spawned
    let logURL: URL

    init(extraArguments: [String] = []) throws {
        cli = try CLI()
        logURL = URL(fileURLWithPath: cli.stateDir + ".log")
        process = try Spawned(
            try CLI.binary, ["serve", "--state-dir", cli.stateDir, "--input-dir", cli.stateDir + "/no-input"] + extraArguments,
            capture: false, log: logURL.path)
        try waitForSocket()
    }

    var socketPath: String { cli.stateDir + "/socket" }
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    private func waitForSocket() throws {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if !process.isRunning { throw FixtureError("sysound serve exited: \(log)") }
            if let r = try? cli.run(["status", "--json"]), r.stdout.contains("\"daemon\": \"running\"") { return }
            usleep(20_000)
        }
        throw FixtureError("sysound serve did not answer within 15 s: \(log)")
    }

    func signal(_ sig: Int32) { process.signal(sig) }

    /// SIGTERM and wait; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { signal(SIGTERM) }
        let status = process.wait()
        cli.cleanUp()
        try? FileManager.default.removeItem(at: logURL)
        return status
    }

    /// Sends one raw datagram on a fresh SOCK_SEQPACKET connection and closes
    /// it at once without reading the reply.
    func sendAndHangUp(_ text: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(socketPath.utf8)
            raw.copyBytes(from: bytes.prefix(raw.count - 1))
        }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard ok == 0 else { throw FixtureError("connect to \(socketPath) failed: errno \(errno)") }
        _ = text.utf8CString.withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count - 1, 0) }
    }
}
