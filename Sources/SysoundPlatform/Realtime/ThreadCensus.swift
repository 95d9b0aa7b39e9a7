import CSysoundShims
import Glibc

/// The threads of this process as /proc/self/task lists them: how the engine
/// finds the audio threads a library starts without telling (OpenAL Soft
/// 1.19.1 neither names its mixer thread nor says its id).
package enum ThreadCensus {
    /// The ids of every thread of this process now.
    package static func threads() -> Set<pid_t> {
        var ids = Set<pid_t>()
        guard let dir = opendir("/proc/self/task") else { return ids }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if let id = pid_t(name) { ids.insert(id) }
        }
        return ids
    }

    /// A thread's name (/proc/self/task/TID/comm), or nil when it is gone.
    package static func name(of tid: pid_t) -> String? {
        guard let f = fopen("/proc/self/task/\(tid)/comm", "r") else { return nil }
        defer { fclose(f) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), f) != nil else { return nil }
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// Runs `body` on this thread and returns, with its result, the threads
    /// that `body` started and that are still running: those that appeared
    /// while it ran and are named either `marker` or one of `names` (a
    /// library thread that names itself, e.g. libpulse's "threaded-ml").
    ///
    /// A thread that does not name itself keeps its creator's name, so this
    /// thread is named `marker` while `body` runs (and its own name again
    /// after): a thread another part of the process starts meanwhile carries
    /// its creator's name, not the marker, even when that creator shares this
    /// thread's usual name (two workers of a pool, a library's threads named
    /// as the process, a libdispatch worker before it names itself). What
    /// `body` started unnamed keeps the marker as its name. When this thread
    /// is the process's main thread, the process's name (`ps`, `pidof`) reads
    /// `marker` for that long. `marker` must be a name no thread that may
    /// start threads meanwhile carries; at most 15 bytes are kept.
    package static func started<T, E: Error>(
        as marker: String, orNamed names: Set<String> = [], by body: () throws(E) -> T
    ) throws(E) -> (result: T, threads: [pid_t]) {
        let marker = String(decoding: marker.utf8.prefix(15), as: UTF8.self)
        let own = name(of: SchedulerCalls.currentThread())
        let before = threads()
        sysound_set_thread_name(marker)
        defer { if let own { sysound_set_thread_name(own) } }
        let result = try body()
        let new = threads().subtracting(before).sorted().filter { tid in
            guard let n = name(of: tid) else { return false }
            return n == marker || names.contains(n)
        }
        return (result, new)
    }
}
