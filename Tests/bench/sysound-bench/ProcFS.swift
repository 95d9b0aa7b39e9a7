import Foundation
import Glibc

/// What the bench reads of a running process in /proc, in one place: its
/// threads (name, on-CPU time, context switches) and its resident memory.
/// Reading these files does not wake the process read.
enum ProcFS {
    /// One thread's counters at one instant.
    struct Thread {
        /// On-CPU nanoseconds (the first field of schedstat: exact, unlike
        /// the 10 ms ticks of /proc/PID/stat).
        var cpuNanoseconds: UInt64 = 0
        /// `voluntary_ctxt_switches`: each is the thread going to sleep, so
        /// each ends in a wake-up — what a timer or a poll that returns costs
        /// whether or not it then uses CPU time worth measuring.
        var voluntarySwitches: UInt64 = 0
        /// `nonvoluntary_ctxt_switches`: preemptions while it ran; they follow
        /// the load on the cores rather than what the thread does.
        var involuntarySwitches: UInt64 = 0
    }

    /// Every thread of `pid`, keyed "name[tid]" (/proc/PID/task/*: comm,
    /// schedstat, status); empty if the process is gone. Snapshots are
    /// compared by key (`spent`): a thread that ended drops out, one that
    /// started counts from zero.
    static func threads(of pid: pid_t) -> [String: Thread] {
        var result: [String: Thread] = [:]
        for tid in taskIDs(of: pid) {
            let dir = "/proc/\(pid)/task/\(tid)/"
            guard let name = readTextFile(dir + "comm")?.trimmingCharacters(in: .whitespacesAndNewlines),
                  let ns = readTextFile(dir + "schedstat")?.split(separator: " ").first.flatMap({ UInt64($0) })
            else { continue }
            var thread = Thread(cpuNanoseconds: ns)
            for line in (readTextFile(dir + "status") ?? "").split(separator: "\n") {
                if line.hasPrefix("voluntary_ctxt_switches:") { thread.voluntarySwitches = value(line) }
                if line.hasPrefix("nonvoluntary_ctxt_switches:") { thread.involuntarySwitches = value(line) }
            }
            result["\(name)[\(tid)]"] = thread
        }
        return result
    }

    /// The threads of several processes (a sound server spread over more than one).
    static func threads(of pids: [pid_t]) -> [String: Thread] {
        pids.reduce(into: [:]) { all, pid in all.merge(threads(of: pid)) { a, _ in a } }
    }

    /// How many threads `pid` has now.
    static func threadCount(of pid: pid_t) -> Int { taskIDs(of: pid).count }

    /// Resident memory from /proc/PID/status: VmRSS and RssAnon, in bytes.
    static func memory(of pid: pid_t) -> (rss: Int, anonymous: Int) {
        let lines = (readTextFile("/proc/\(pid)/status") ?? "").split(separator: "\n")
        func kB(_ key: String) -> Int {
            lines.first { $0.hasPrefix(key + ":") }.map { Int(value($0)) * 1024 } ?? 0
        }
        return (kB("VmRSS"), kB("RssAnon"))
    }

    /// /proc/PID/smaps_rollup, in bytes: what the process holds, summed over its mappings.
    struct Rollup {
        let rss: Int
        let anonymous: Int
        let privateClean: Int
        let privateDirty: Int
    }

    /// The process's smaps_rollup; nil when it is gone.
    static func rollup(of pid: pid_t) -> Rollup? {
        guard let text = readTextFile("/proc/\(pid)/smaps_rollup") else { return nil }
        let lines = text.split(separator: "\n")
        func kB(_ key: String) -> Int { lines.first { $0.hasPrefix(key + ":") }.map { Int(value($0)) * 1024 } ?? 0 }
        return Rollup(rss: kB("Rss"), anonymous: kB("Anonymous"), privateClean: kB("Private_Clean"), privateDirty: kB("Private_Dirty"))
    }

    /// How much a counter grew per thread between two snapshots, summed:
    /// threads are matched by key, so one that ended in between drops out
    /// instead of making the sum go backwards, and one that started counts
    /// from zero.
    static func spent(_ before: [String: Thread], _ after: [String: Thread], _ counter: KeyPath<Thread, UInt64>) -> UInt64 {
        after.reduce(0) { sum, entry in sum + grown(before[entry.key]?[keyPath: counter], entry.value[keyPath: counter]) }
    }

    /// Each thread's growth of a counter between two snapshots (threads that grew only).
    static func byThread(_ before: [String: Thread], _ after: [String: Thread], _ counter: KeyPath<Thread, UInt64>) -> [(String, UInt64)] {
        after.compactMap { key, thread in
            let n = grown(before[key]?[keyPath: counter], thread[keyPath: counter])
            return n > 0 ? (key, n) : nil
        }.sorted { $0.1 > $1.1 }
    }

    private static func grown(_ before: UInt64?, _ after: UInt64) -> UInt64 { after &- min(before ?? 0, after) }

    /// "key:   123 kB" → 123.
    private static func value(_ line: Substring) -> UInt64 {
        line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { UInt64($0) } ?? 0
    }

    private static func taskIDs(of pid: pid_t) -> [String] {
        guard let dir = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(dir) }
        var ids: [String] = []
        while let entry = readdir(dir) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if tid.first?.isNumber == true { ids.append(tid) }
        }
        return ids
    }
}
