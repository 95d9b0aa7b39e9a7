import Foundation
import SysoundClient
import SysoundCore
import SysoundTestSupport
import XCTest

/// Many clients at once, and many requests over time, against a real daemon.
///
/// Sizes come from the environment: the defaults are the short form CI runs,
/// Tests/reliability/soak.sh sets the long one (1000 per client, 1 000 000):
///   SYSOUND_LOAD_CLIENTS (100), SYSOUND_LOAD_REQUESTS per client (100)
///   SYSOUND_SOAK_REQUESTS total (12 000), SYSOUND_SOAK_CLIENTS (8)
final class LoadTests: XCTestCase {
    static func setting(_ key: String, _ fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[key].flatMap(Int.init) ?? fallback
    }

    /// The request mix: sounds, vibrations (no haptic device here: answered
    /// with an error), state reads and silent-mode toggles.
    static func request(_ i: Int) -> Request {
        switch i % 8 {
        case 0, 1, 2: .play(PlayRequest(.name(["tap", "click", "key"][i % 3])))
        case 3: .vibrate(VibrateRequest(.preset("success")))
        case 4: .stateGet(nil)
        case 5: .stateGet(.volume)
        case 6: .stateSet(try! StateChange(.silent, parsing: (i / 8) % 2 == 0 ? "1" : "0"))
        default: .ping
        }
    }

    final class Tally: @unchecked Sendable {
        let lock = NSLock()
        var answered = 0, errors: [String: Int] = [:], failures: [String] = []
        func add(_ reply: Reply) {
            lock.lock(); defer { lock.unlock() }
            answered += 1
            if case .error(let code, _) = reply { errors[code.rawValue, default: 0] += 1 }
        }
        func fail(_ text: String) {
            lock.lock(); defer { lock.unlock() }
            if failures.count < 20 { failures.append(text) }
        }
    }

    /// `clients` threads, each with its own connection, each sending `perClient` requests.
    static func hammer(_ daemon: DaemonProcess, clients: Int, perClient: Int, offset: Int = 0) -> (Tally, Double) {
        let tally = Tally()
        let start = Date()
        let socketPath = daemon.socketPath
        DispatchQueue.concurrentPerform(iterations: clients) { c in
            do {
                let connection = try DaemonConnection(socketPath: socketPath, timeoutMilliseconds: 10_000)
                for i in 0..<perClient {
                    do {
                        tally.add(try connection.send(request(offset + c * 7 + i)))
                    } catch {
                        tally.fail("client \(c) request \(i): \(error)")
                    }
                }
            } catch {
                tally.fail("client \(c) could not connect: \(error)")
            }
        }
        return (tally, Date().timeIntervalSince(start))
    }

    /// The pool's size (`voices` of `status`).
    func voices(_ daemon: DaemonProcess) -> Int? {
        guard case .ok(let fields, _)? = try? daemon.client.send(.status) else { return nil }
        return fields["voices"].flatMap(Int.init)
    }

    func testConcurrentClientsAreAllAnsweredAndVoicesReclaimed() throws {
        try Pulse.require()
        let daemon = try DaemonProcess()
        defer { XCTAssertEqual(daemon.stop(), 0, "the daemon did not exit 0: \(daemon.log(tail: 20))") }
        let clients = Self.setting("SYSOUND_LOAD_CLIENTS", 100)
        let perClient = Self.setting("SYSOUND_LOAD_REQUESTS", 100)
        // ProcessInfo's concurrentPerform uses one thread per core; these
        // clients must be concurrent for real, so each gets its own thread.
        let (tally, seconds) = Self.threads(daemon, clients: clients, perClient: perClient)
        XCTAssertEqual(tally.failures, [], "requests went unanswered")
        XCTAssertEqual(tally.answered, clients * perClient)
        let unexpected = tally.errors.filter { $0.key != "no-device" }
        XCTAssertEqual(unexpected, [:], "errors other than no-device (no haptic device here): \(unexpected)")
        XCTAssertTrue(daemon.isRunning)
        // Voices reclaimed: a second after the last request nothing sounds any
        // more, and a burst of as many sounds as the pool has voices all start.
        _ = try daemon.client.send(.stateSet(StateChange(.silent, parsing: "0")))
        usleep(1_000_000)
        XCTAssertLessThan(try Pulse.peak(0.3), 1e-4, "something still plays after the load")
        let poolSize = voices(daemon) ?? 32
        for i in 0..<poolSize {
            guard case .ok(let fields, _) = try daemon.client.send(.play(PlayRequest(.name("tap"), gain: 0.1))) else {
                return XCTFail("sound \(i) of a burst of \(poolSize) was refused")
            }
            XCTAssertNotNil(fields["id"], "sound \(i) of the burst got no voice: \(fields)")
        }
        usleep(500_000)
        XCTAssertGreaterThan(try Pulse.peak(0.4) { _ = try daemon.client.send(.play(PlayRequest(.name("tap")))) }, 0.05,
                             "no sound after the load")
        print("reliability: load \(clients) clients × \(perClient) requests: all \(tally.answered) answered in \(String(format: "%.1f", seconds)) s (\(Int(Double(tally.answered) / seconds))/s), RSS \(daemon.rssKiB() ?? 0) KiB")
    }

    /// One thread per client (Thread, not a pool), all started before any sends.
    static func threads(_ daemon: DaemonProcess, clients: Int, perClient: Int) -> (Tally, Double) {
        let tally = Tally()
        let socketPath = daemon.socketPath
        let group = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        for c in 0..<clients {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let connection: DaemonConnection
                do {
                    connection = try DaemonConnection(socketPath: socketPath, timeoutMilliseconds: 10_000)
                } catch {
                    return tally.fail("client \(c) could not connect: \(error)")
                }
                gate.wait()
                for i in 0..<perClient {
                    do { tally.add(try connection.send(request(c * 7 + i))) } catch { tally.fail("client \(c) request \(i): \(error)") }
                }
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
        let start = Date()
        for _ in 0..<clients { gate.signal() }
        group.wait()
        return (tally, Date().timeIntervalSince(start))
    }

    /// Memory over many requests: RSS sampled after a warm-up and at the end
    /// must grow by less than 5 MB. Also run by Tests/reliability/soak.sh with
    /// SYSOUND_SOAK_REQUESTS=1000000, which prints the samples.
    func testSoakMemoryGrowthAfterWarmUp() throws {
        // A sanitizer holds freed memory back (ASan's quarantine, TSan's shadow):
        // RSS then measures the sanitizer, not the daemon.
        try XCTSkipIf(ProcessInfo.processInfo.environment["SYSOUND_SANITIZER"] != nil,
                      "memory growth is measured in the plain build (make test, Tests/reliability/soak.sh)")
        try Pulse.require()
        let daemon = try DaemonProcess()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let total = Self.setting("SYSOUND_SOAK_REQUESTS", 12_000)
        let clients = Self.setting("SYSOUND_SOAK_CLIENTS", 8)
        let rounds = 20
        let perRound = max(1, total / rounds / clients)
        // Warm-up: a tenth of the work, or at least 4000 requests, fills caches and pools.
        let warm = Self.hammer(daemon, clients: clients, perClient: max(perRound * 2, 4000 / clients))
        XCTAssertEqual(warm.0.failures, [])
        let base = daemon.rssKiB() ?? 0
        var samples: [Int] = [base]
        var answered = 0
        let start = Date()
        for r in 0..<rounds {
            let (tally, _) = Self.hammer(daemon, clients: clients, perClient: perRound, offset: r * 1000)
            XCTAssertEqual(tally.failures, [], "round \(r)")
            answered += tally.answered
            samples.append(daemon.rssKiB() ?? 0)
        }
        let seconds = Date().timeIntervalSince(start)
        let growth = samples.last! - base
        print("reliability: soak \(answered) requests in \(Int(seconds)) s after warm-up; RSS KiB \(samples.map(String.init).joined(separator: " ")); growth \(growth) KiB")
        XCTAssertTrue(daemon.isRunning)
        XCTAssertLessThan(growth, 5 * 1024, "RSS grew \(growth) KiB after warm-up: \(samples)")
    }

    /// Memory as the file holds it: a theme of 50.7 MB of 16-bit PCM (66
    /// mono and 33 stereo sounds of 4 s, made by sox) costs the daemon at most
    /// 1.2 × those bytes more than the shipped theme alone (it cost about 4.5 ×
    /// when clips were kept as float and mono was uploaded as stereo). The
    /// default max_preload_bytes (64 MiB) holds it.
    func testABigThemeCostsAboutItsPCMBytes() throws {
        try XCTSkipIf(ProcessInfo.processInfo.environment["SYSOUND_SANITIZER"] != nil,
                      "memory is measured in the plain build (make test)")
        try Pulse.require()
        let base = try DaemonProcess(config: Configs.theme())
        defer { XCTAssertEqual(base.stop(), 0) }
        let baseKiB = try Self.settledRSS(base)

        let big = try DaemonProcess(config: Configs.theme("@ROOT@/big"), start: false)
        defer { XCTAssertEqual(big.stop(), 0) }
        let pcm = try Self.makeBigTheme(big.root + "/big")
        try big.start()
        let bigKiB = try Self.settledRSS(big)
        XCTAssertTrue(big.log().contains(" sounds, 0 failed"), "every sound fits the default budget: \(big.log(tail: 20))")
        let growth = (bigKiB - baseKiB) * 1024
        print("reliability: big theme \(pcm) bytes of 16-bit PCM; RSS \(baseKiB) KiB → \(bigKiB) KiB, growth \(String(format: "%.3f", Double(growth) / Double(pcm))) × the PCM")
        XCTAssertLessThanOrEqual(Double(growth), 1.2 * Double(pcm), "RSS grew \(growth) bytes for \(pcm) bytes of PCM")
        XCTAssertGreaterThan(Double(growth), 0.8 * Double(pcm), "the theme is loaded (else the bound proves nothing)")
    }

    static let bigMono = 66, bigStereo = 33

    /// Writes the big theme; returns its PCM bytes (frames × channels × 2).
    static func makeBigTheme(_ dir: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var index = "", bytes = 0
        for i in 0..<(bigMono + bigStereo) {
            let channels = i < bigMono ? 1 : 2
            let file = "big-\(i).wav"
            let result = try Spawned.run("/usr/bin/sox", [
                "-n", "-r", "48000", "-c", "\(channels)", "-b", "16", dir + "/" + file, "synth", "4", "sine", "\(200 + 10 * i)", "vol", "0.3"])
            guard result.status == 0 else { throw FixtureError("sox: \(result.stderr)") }
            index += "[sounds.big-\(i)]\nfile = \"\(file)\"\n"
            bytes += 4 * 48_000 * channels * 2
        }
        try index.write(toFile: dir + "/index.toml", atomically: true, encoding: .utf8)
        return bytes
    }

    /// The daemon's RSS once its theme is loaded and its output open (both
    /// logged), after a short settling pause.
    static func settledRSS(_ daemon: DaemonProcess) throws -> Int {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let log = daemon.log()
            if log.contains("preloaded ") && log.contains("audio output ") { break }
            usleep(50_000)
        }
        usleep(500_000)
        guard let kib = daemon.rssKiB() else { throw FixtureError("no RSS for the daemon: \(daemon.log(tail: 20))") }
        return kib
    }
}
