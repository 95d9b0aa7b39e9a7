import Foundation
import Glibc
import SysoundPlatform

/// Figure 15, part 4: what an idle daemon holds, alone on the machine, beside
/// Debian's feedbackd in the same conditions: each started alone
/// on the desktop's buses (sysound with its D-Bus face up and the shipped
/// theme; feedbackd headless, GSETTINGS_BACKEND=memory), one sound played,
/// then the figure's quiet time, then /proc/PID/smaps_rollup read:
///
/// - anonymous memory (`Anonymous`): what the process alone made;
/// - private memory, the USS (`Private_Clean` + `Private_Dirty`): that, and
///   the file pages no other process maps (the executable's and libraries'
///   pages it touched). Each is measured alone, so no library is shared with
///   the other: the most either can be charged.
enum RestMemory {
    static func anonymous(_ who: String) -> String { "anonymous memory, idle alone: \(who)" }
    static func uss(_ who: String) -> String { "private memory (USS), idle alone: \(who)" }
    static let sysound = "sysound, shipped theme"
    static let feedbackd = "feedbackd"

    static func run(_ c: BenchContext, config: String, quiet: Double) throws {
        let daemon = try BenchDaemon(binary: c.sysound, config: config, workDirectory: c.work, name: "rest-alone")
        do {
            defer { daemon.stop() }
            try daemon.waitForLog("preloaded ", timeout: 60)
            try RestFigure.lastSound(c, daemon)
            Clock.sleep(seconds: quiet)
            try add(c, sysound, ProcFS.rollup(of: daemon.pid), note: "after `sysound play tap` and \(fmt(quiet)) s")
        }
        guard access(DBusFigure.feedbackd, X_OK) == 0 else { throw BenchError("\(DBusFigure.feedbackd) is missing (Debian package feedbackd)") }
        guard let address = getenv("DBUS_SESSION_BUS_ADDRESS").map({ String(cString: $0) }) else {
            throw BenchError("figure 15 has no session bus for feedbackd")
        }
        var env = currentEnvironment()
        env["GSETTINGS_BACKEND"] = "memory"
        let log = open(c.work + "/feedbackd-rest.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { if log >= 0 { close(log) } }
        let pid = try Children.spawn(DBusFigure.feedbackd, [], environment: env, stdout: log, stderr: log)
        defer { Children.stop(pid) }
        let client = try Bus.open(.address(address))
        try DBusFigure.waitForName(client)
        _ = try DBusFigure.trigger(client, DBusFigure.event)
        Clock.sleep(seconds: quiet)
        try add(c, feedbackd, ProcFS.rollup(of: pid), note: "after one \(DBusFigure.event) (a sound through libcanberra) and \(fmt(quiet)) s")
    }

    private static func add(_ c: BenchContext, _ who: String, _ m: ProcFS.Rollup?, note: String) throws {
        guard let m else { throw BenchError("figure 15: \(who) is gone before its memory was read") }
        c.report.add(RestFigure.figure, anonymous(who), unit: "MB", value: Double(m.anonymous) / 1e6, note: note)
        c.report.add(RestFigure.figure, uss(who), unit: "MB", value: Double(m.privateClean + m.privateDirty) / 1e6,
                     note: String(format: "%.1f MB clean, %.1f MB dirty; RSS %.1f MB", Double(m.privateClean) / 1e6,
                                  Double(m.privateDirty) / 1e6, Double(m.rss) / 1e6))
    }
}
