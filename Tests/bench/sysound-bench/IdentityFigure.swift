import Glibc
import Logging
import SysoundDaemon
import SysoundPlatform

/// Figure 16, beside figure 9's D-Bus latency (docs/security.md): what
/// proving a caller's identity adds to a request. In this process, with
/// the daemon's own types, on a private session bus (started here):
/// a sender's first request (GetConnectionCredentials, a pidfd, its /proc
/// root and label read), its later ones (the cache, and the decision of
/// which id decides: the sandboxed path, which also records it for
/// status), and a socket peer's read (once per connection).
enum IdentityFigure {
    static let figure = "16"
    static let later = "identity: a sender's later requests (cache + deciding id)"
    static func run(_ c: BenchContext) throws {
        let bus = try PrivateSessionBus(c, directory: c.work + "/identity-dbus")
        defer { bus.stop() }
        let address = bus.address
        let daemonSide = try Bus.open(.address(address))
        var logger = Logger(label: "sysound-bench.identity")
        logger.logLevel = .error
        let senders = BusCallers(logger: logger)
        let callers = CallerApps(logger: logger, runtimeDirectory: nil) { _ in }

        // First requests: each from a sender not seen before.
        var first: [Double] = []
        var clients: [Bus] = []
        for _ in 0..<c.count(50, smoke: 5) {
            let client = try Bus.open(.address(address))
            guard let name = client.uniqueName else { throw BenchError("a bench connection has no unique name") }
            clients.append(client)
            let t0 = Clock.now()
            let identity = senders.identity(of: name, on: daemonSide)
            _ = callers.app(claimed: "org.example.Bench", identity: identity, caller: name)
            first.append(Double(Clock.now() - t0) / 1e3)
        }
        // Later requests: the cache, then the id that decides. The bench's
        // senders are host processes; the decision is timed on the sandboxed
        // path (the verified id replaces the claim, is recorded for status).
        guard let sender = clients.first?.uniqueName else { throw BenchError("no sender") }
        let sandboxed = SandboxIdentity.flatpak(FlatpakInfo(app: "org.example.Clock", instance: "1"))
        var later: [Double] = []
        for _ in 0..<c.count(20_000, smoke: 200) {
            let t0 = Clock.now()
            let identity = senders.identity(of: sender, on: daemonSide)
            _ = callers.app(claimed: "org.example.Bench", identity: identity.isSandboxed ? identity : sandboxed, caller: sender)
            later.append(Double(Clock.now() - t0) / 1e3)
        }
        // A socket peer: its process read once per connection (the CLI's `play` opens one per request).
        var socketPeer: [Double] = []
        for _ in 0..<c.count(500, smoke: 20) {
            let t0 = Clock.now()
            _ = SandboxProbe.identity(of: try ProcessHandle(pid: getpid()))
            socketPeer.append(Double(Clock.now() - t0) / 1e3)
        }
        withExtendedLifetime(clients) {}
        c.report.add(figure, Self.later, unit: "µs", later, note: "target ≤ 50 (p99)")
        c.report.add(figure, "identity: a sender's first request (GetConnectionCredentials + /proc)", unit: "µs", first)
        c.report.add(figure, "identity: a socket peer, once per connection (pidfd + /proc)", unit: "µs", socketPeer)
        c.report.notes.append("figure 16: in the bench's process with the daemon's BusCallers and CallerApps on a private session bus; later requests timed on the sandboxed decision path with a host sender's cached entry; a socket peer read of this (host) process")
    }
}
